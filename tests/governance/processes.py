"""Real processes for governance tests: the ``ghostlight`` CLI and a service subprocess for a
private instance, and a bridge client that makes calls the way an edge does."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import trio
from bench.harness import running_service  # tests/ is on sys.path (rootdir packages)

from ghostlight_trio.transport.bridge import (
    OpenWorkspace,
    Outcome,
    Rejected,
    RequestContext,
    Start,
    WorkspaceOpened,
)
from ghostlight_trio.transport.endpoints import Endpoints
from ghostlight_trio.transport.handshake import open_bridge
from ghostlight_trio.transport.stream import MessageStream

# Observe-mode grants make every tool reachable, so the catalog still offers tabs_context_mcp;
# it needs `read`, which no grant allows, so the call is denied (enforced, by the manifest's
# mode) before any browser is involved.
DENYING_POLICY: dict[str, Any] = {
    "schema": 3,
    "name": "team",
    "version": "1",
    "grants": [
        {
            "id": "docs",
            "hosts": {"allow": ["*.docs.example", "docs.example"]},
            "allowed": ["action"],
            "mode": "observe",
        }
    ],
}
ALLOWING_POLICY: dict[str, Any] = {
    "schema": 3,
    "name": "team",
    "version": "2",
    "grants": [{"id": "all", "hosts": {"allow": ["*"]}, "allowed": ["read", "action"]}],
}
PLAN = {"domains": ["docs.example"], "approach": ["read the docs"]}


def cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """``ghostlight ARGS`` as its own process."""
    return subprocess.run(
        [sys.executable, "-m", "ghostlight_trio", *args],
        env=env, capture_output=True, text=True, timeout=30, check=False,
    )


async def acli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """``cli`` from a Trio test, off the event loop."""
    return await trio.to_thread.run_sync(lambda: cli(env, *args))


def write_json(path: Path, body: Any) -> Path:
    path.write_text(json.dumps(body, indent=2))
    return path


@contextmanager
def service_process(env: dict[str, str]) -> Iterator[Endpoints]:
    """A warm real service (``ghostlight service --keep-warm``) for the instance in ``env``."""
    with running_service(env) as endpoints:
        yield endpoints


class Edge:
    """One bridge stream, used the way an edge uses it: open workspaces, start calls, await
    each call's one outcome."""

    def __init__(self, stream: MessageStream) -> None:
        self._stream = stream
        self._sequence = 0

    async def _ask(self, message: Any) -> Any:
        await self._stream.send(message)
        with trio.fail_after(10):
            while True:
                reply = await self._stream.receive()
                if isinstance(reply, Outcome | WorkspaceOpened | Rejected):
                    return reply

    def _next(self) -> int:
        self._sequence += 1
        return self._sequence

    async def workspace(self, label: str) -> str:
        opened = await self._ask(OpenWorkspace(sequence=self._next(), client_label=label))
        assert isinstance(opened, WorkspaceOpened), opened
        return opened.workspace_id

    async def call(
        self, tool: str, arguments: dict[str, Any], workspace: str | None, label: str
    ) -> Outcome:
        start = Start(
            sequence=self._next(),
            operation=tool,
            arguments=arguments,
            workspace_id=workspace,
            context=RequestContext(client_label=label),
        )
        outcome = await self._ask(start)
        assert isinstance(outcome, Outcome), outcome
        return outcome


@asynccontextmanager
async def edge(endpoints: Endpoints) -> AsyncIterator[Edge]:
    stream, _ = await open_bridge(endpoints)
    try:
        yield Edge(stream)
    finally:
        await stream.aclose()


def audit_calls(endpoints: Endpoints) -> list[dict[str, Any]]:
    """The call records of the instance's audit file, in order."""
    lines = endpoints.audit_file.read_text("utf-8").splitlines()
    return [record for record in map(json.loads, lines) if "event" not in record]
