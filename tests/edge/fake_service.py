"""A small, honest stand-in for the Ghostlight service on the bridge, for edge seam tests.

It speaks the real bridge (real admission proof, real catalog and argument validation, the real
update_plan tool) but has no browser. It lists every catalog tool, as the real service does with
no policy (so transcripts expect the same lists of both); any tool but update_plan answers
"No policy is configured.". Test knobs, all environment variables:
  FAKE_PLAN_DELAY  seconds update_plan takes (with progress ticks), default 0
  FAKE_BROWSER_WAIT  seconds any tool but update_plan and explain waits before answering, as
                   the real service waits 5 s for a browser when none is connected; default 0
  FAKE_BRIDGE_MAJOR  answer every hello, signed, as a service of that bridge major (then only
                   record, in ``$GHOSTLIGHT_HOME/after-hello.log``, what each connection sends)
SIGUSR1 toggles whether ``explain`` is advertised and broadcasts CatalogChanged.

Usage: python tests/edge/fake_service.py --instance NAME
"""

from __future__ import annotations

import argparse
import contextlib
import os
import secrets
import signal
import socket
import sys
from pathlib import Path
from typing import Any

import trio

from ghostlight_trio.catalog.registry import Catalog, load_specs
from ghostlight_trio.engine import texts
from ghostlight_trio.engine.contracts import ToolCall, WorkContext, WorkspaceId
from ghostlight_trio.governance.governor import Governor
from ghostlight_trio.tools.update_plan import PlanBook
from ghostlight_trio.transport.bridge import (
    Cancel,
    CatalogChanged,
    CatalogProjection,
    CatalogRequest,
    ClientHello,
    OpenWorkspace,
    Outcome,
    Progress,
    Rejected,
    ReleaseWorkspace,
    ServiceHello,
    ServiceProof,
    Start,
    Started,
    TextBlock,
    WorkspaceOpened,
)
from ghostlight_trio.transport.bridge_codec import encode_message
from ghostlight_trio.transport.endpoints import Endpoints
from ghostlight_trio.transport.handshake import accept_bridge
from ghostlight_trio.transport.proof import load_or_create_secret, sign
from ghostlight_trio.transport.stream import BridgeClosed, MessageStream


class _NoEffects:
    async def atomic(self, effect: Any) -> Any:
        return await effect()

    async def checkpoint(self) -> None:
        await trio.lowlevel.checkpoint()

    def caller_cancelled(self) -> trio.Event:
        return trio.Event()  # never cancelled

    def progress(self, progress: float, total: float | None = None, message: str = "") -> None:
        pass

    def done_so_far(self, what: str) -> None:
        pass

    def denied_at(self, url: str) -> str | None:
        return None

    def closed_at(self, url: str) -> str | None:
        return None


class FakeService:
    def __init__(self, instance: str) -> None:
        self.instance = instance
        specs = load_specs()  # all advertised, as the real service does with no policy: the
        self.catalog = Catalog(specs, available=[spec.name for spec in specs])  # same lists
        self.plans = PlanBook()
        self.governor = Governor()
        self.workspaces: set[str] = set()
        self.streams: set[MessageStream] = set()
        self.delay = float(os.environ.get("FAKE_PLAN_DELAY", "0") or 0)
        self.browser_wait = float(os.environ.get("FAKE_BROWSER_WAIT", "0") or 0)

    def projection(
        self, sequence: int, restriction: dict[str, Any] | None = None
    ) -> CatalogProjection:
        """The advertised list; with a restriction, what the service's own judgement
        (``Governor.advertised`` under no policy) says that restriction allows."""
        tools = self.catalog.descriptors()
        if restriction is not None:
            allowed = self.governor.advertised(
                self.catalog.advertised(),
                [tool.name for tool in tools],
                self.governor.restriction(restriction),
            )
            tools = [tool for tool in tools if tool.name in allowed]
        return CatalogProjection(
            sequence=sequence,
            generation=self.catalog.generation,
            tools=tools,
            restricted=restriction is not None,
        )

    async def toggle_catalog(self) -> None:
        names = {s.name for s in self.catalog.advertised()}
        names ^= {"explain"}
        self.catalog.set_available(names)
        for stream in list(self.streams):
            try:
                await stream.send(CatalogChanged(generation=self.catalog.generation))
            except BridgeClosed:
                pass

    async def serve_other_major(self, stream: MessageStream, secret: bytes, major: int) -> None:
        """A service of another bridge major: a genuine signed hello, then nothing but a record
        of what the connector sends after it (it should send nothing)."""
        log = Path(os.environ["GHOSTLIGHT_HOME"]) / "after-hello.log"
        try:
            hello = await stream.receive()
            assert isinstance(hello, ClientHello)
            body = encode_message(
                ServiceHello(major, 0, hello.nonce, secrets.token_bytes(16), "fake", self.instance)
            )
            await stream.send_bodies([body, encode_message(ServiceProof(mac=sign(secret, body)))])
            while True:
                message = await stream.receive()
                with log.open("a") as record:
                    record.write(type(message).__name__ + "\n")
        except Exception:  # the connector closing is the expected end
            pass
        finally:
            await stream.aclose()

    async def serve_connection(self, sock_stream: trio.SocketStream, secret: bytes) -> None:
        stream = MessageStream(sock_stream)
        major = os.environ.get("FAKE_BRIDGE_MAJOR")
        if major:
            await self.serve_other_major(stream, secret, int(major))
            return
        try:
            await accept_bridge(
                stream, secret=secret, instance=self.instance, service_version="fake"
            )
        except Exception:
            await stream.aclose()
            return
        self.streams.add(stream)
        work: dict[str, trio.CancelScope] = {}
        try:
            async with trio.open_nursery() as nursery:
                while True:
                    try:
                        message = await stream.receive()
                    except Exception:
                        break
                    try:
                        await self.handle(stream, message, work, nursery)
                    except BridgeClosed:
                        break
                nursery.cancel_scope.cancel()
        finally:
            self.streams.discard(stream)
            await stream.aclose()

    async def handle(
        self,
        stream: MessageStream,
        message: Any,
        work: dict[str, trio.CancelScope],
        nursery: trio.Nursery,
    ) -> None:
        if isinstance(message, OpenWorkspace):
            reattached = message.reattach in self.workspaces
            workspace_id = message.reattach if reattached else secrets.token_urlsafe(16)
            assert workspace_id is not None
            self.workspaces.add(workspace_id)
            await stream.send(
                WorkspaceOpened(
                    sequence=message.sequence, workspace_id=workspace_id, reattached=reattached
                )
            )
        elif isinstance(message, ReleaseWorkspace):
            self.workspaces.discard(message.workspace_id)
        elif isinstance(message, CatalogRequest):
            await stream.send(self.projection(message.sequence, message.restriction))
        elif isinstance(message, Cancel):
            scope = work.get(message.work_id)
            if scope is not None:
                scope.cancel()
        elif isinstance(message, Start):
            spec = self.catalog.spec(message.operation)
            if spec is None:
                await stream.send(
                    Rejected(
                        sequence=message.sequence,
                        code="unknown_tool",
                        message=texts.unknown_tool(message.operation),  # as the service says it
                        next_step="",
                    )
                )
                return
            work_id = "W" + secrets.token_hex(6)
            scope = trio.CancelScope()
            work[work_id] = scope
            await stream.send(Started(sequence=message.sequence, work_id=work_id))
            nursery.start_soon(self.run_work, stream, message, work_id, scope, work)

    async def run_work(
        self,
        stream: MessageStream,
        start: Start,
        work_id: str,
        scope: trio.CancelScope,
        work: dict[str, trio.CancelScope],
    ) -> None:
        outcome: Outcome
        with scope:
            problem = self.catalog.validate(start.operation, start.arguments)
            if problem is not None:
                outcome = Outcome(work_id=work_id, kind="tool_error", content=[TextBlock(problem)])
            else:
                if start.operation not in ("update_plan", "explain"):
                    await trio.sleep(self.browser_wait)  # as for a browser that never comes
                if self.delay and start.operation == "update_plan":
                    steps = 5
                    for step in range(steps):
                        if start.context.wants_progress:
                            await stream.send(Progress(work_id=work_id, progress=step, total=steps))
                        await trio.sleep(self.delay / steps)
                context = WorkContext(
                    work_id=work_id,
                    operation=start.operation,
                    workspace_id=WorkspaceId(start.workspace_id) if start.workspace_id else None,
                )
                call = ToolCall(context=context, arguments=start.arguments, effects=_NoEffects())
                if start.operation == "update_plan":
                    result = await self.plans.update_plan(call)
                    outcome = Outcome(work_id=work_id, kind=result.kind, content=result.content)
                else:
                    outcome = Outcome(
                        work_id=work_id, kind="ok", content=[TextBlock("No policy is configured.")]
                    )
        if scope.cancelled_caught:
            outcome = Outcome(work_id=work_id, kind="cancelled")
        work.pop(work_id, None)
        try:
            await stream.send(outcome)
        except BridgeClosed:
            pass


async def main(instance: str) -> None:
    # Signal handling first: SIGUSR1 must never hit the default action (exit) once we listen.
    with trio.open_signal_receiver(signal.SIGUSR1, signal.SIGTERM) as signals:
        endpoints = Endpoints.for_instance(instance)
        endpoints.ensure_private_dirs()
        secret = load_or_create_secret(endpoints.secret_file)
        path = str(endpoints.edge_socket)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)
        raw = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        raw.bind(path)
        os.chmod(path, 0o600)
        raw.listen(16)
        listener = trio.SocketListener(trio.socket.from_stdlib_socket(raw))
        service = FakeService(endpoints.instance)
        print("fake service ready", file=sys.stderr, flush=True)

        async def on_signals() -> None:
            async for signum in signals:
                if signum == signal.SIGTERM:
                    raise SystemExit(0)
                await service.toggle_catalog()

        async with trio.open_nursery() as nursery:
            nursery.start_soon(on_signals)
            while True:
                sock_stream = await listener.accept()
                nursery.start_soon(service.serve_connection, sock_stream, secret)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--instance", required=True)
    try:
        trio.run(main, parser.parse_args().instance)
    except (SystemExit, KeyboardInterrupt):
        pass
