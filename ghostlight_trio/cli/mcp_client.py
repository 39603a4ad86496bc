"""A minimal MCP client over a child process's standard streams, for ``ghostlight demo``.

It speaks the 2025-11-25 handshake (or 2026-07-28 per-request metadata) to the real
``ghostlight-mcp-connector`` exactly as an MCP client would (tests and benchmarks use it too).
It is deliberately small: requests are answered in order of arrival and matched by id;
notifications are collected. Being a client of the MCP edge, it is one of the few modules
outside ``transport`` that names MCP revisions
(``tests/architecture/test_service_is_protocol_neutral.py``).

With ``GHOSTLIGHT_MCP_WIRE_LOG`` naming a directory, each client records its conversation there,
one file per connector process (``<pid>.wire``): every line it wrote as ``>`` + line, every
line the connector wrote as ``<`` + line, in the order they passed (the format of
``tests/edge/wire_tap.py``). The test suite sets it to hold each connector line of the
end-to-end tests, the demo's included, to the official schema of its revision.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import trio

REVISION_2025_11_25 = "2025-11-25"
REVISION_2026_07_28 = "2026-07-28"
WIRE_LOG_ENV = "GHOSTLIGHT_MCP_WIRE_LOG"


class McpError(Exception):
    """The server answered with a JSON-RPC error."""

    def __init__(self, error: Mapping[str, Any]) -> None:
        super().__init__(f"{error.get('code')}: {error.get('message')}")
        self.error = dict(error)


class McpClient:
    """Drive one connector process. Use ``async with McpClient.spawn(...)``."""

    def __init__(self, process: trio.Process, era: str) -> None:
        self._process = process
        self.era = era
        self._ids = itertools.count(1)
        self._buffer = b""
        self.notifications: list[dict[str, Any]] = []
        directory = os.environ.get(WIRE_LOG_ENV)
        self._wire: Path | None = None
        if directory:
            Path(directory).mkdir(parents=True, exist_ok=True)
            self._wire = Path(directory) / f"{process.pid}.wire"

    @classmethod
    async def spawn(
        cls,
        command: Sequence[str] | None = None,
        *,
        env: Mapping[str, str] | None = None,
        era: str = REVISION_2025_11_25,
        client_name: str = "ghostlight-demo",
        stderr: int | None = None,
    ) -> McpClient:
        """Start the connector (its stderr to the file descriptor ``stderr``, else inherited)
        and open the session; a start that fails or is interrupted stops the process again."""
        argv = list(command or [sys.executable, "-m", "ghostlight_mcp_connector"])
        process = await trio.lowlevel.open_process(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
            env=dict(env) if env is not None else None,
        )
        client = cls(process, era)
        try:
            await client._open(client_name)
        except BaseException:
            with trio.CancelScope(shield=True):
                await client.aclose()
            raise
        return client

    async def _open(self, client_name: str) -> None:
        client, era = self, self.era
        if era == REVISION_2025_11_25:
            await client.request(
                "initialize",
                {
                    "protocolVersion": REVISION_2025_11_25,
                    "capabilities": {},
                    "clientInfo": {"name": client_name, "version": "1"},
                },
            )
            await client.notify("notifications/initialized")

    async def __aenter__(self) -> McpClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close stdin (the clean shutdown signal) and wait briefly for the process to exit."""
        assert self._process.stdin is not None
        with trio.CancelScope(shield=True):
            with trio.move_on_after(5):
                await self._process.stdin.aclose()
                await self._process.wait()
            if self._process.returncode is None:
                self._process.kill()
                with trio.move_on_after(5):
                    await self._process.wait()

    def _meta(self) -> dict[str, Any]:
        return {
            "io.modelcontextprotocol/protocolVersion": REVISION_2026_07_28,
            "io.modelcontextprotocol/clientCapabilities": {},
        }

    async def _send(self, message: Mapping[str, Any]) -> None:
        assert self._process.stdin is not None
        line = json.dumps(message, separators=(",", ":")).encode() + b"\n"
        self._record(b">" + line)
        await self._process.stdin.send_all(line)

    async def _read_line(self) -> dict[str, Any]:
        assert self._process.stdout is not None
        while b"\n" not in self._buffer:
            chunk = await self._process.stdout.receive_some(65536)
            if not chunk:
                raise EOFError("the connector closed its output")
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        self._record(b"<" + line + b"\n")
        message: dict[str, Any] = json.loads(line)
        return message

    def _record(self, line: bytes) -> None:
        if self._wire is not None:
            with self._wire.open("ab") as wire:
                wire.write(line)

    async def notify(self, method: str, params: Mapping[str, Any] | None = None) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = dict(params)
        await self._send(message)

    async def request(self, method: str, params: Mapping[str, Any] | None = None) -> Any:
        """Send one request and return its result; raise McpError for an error response."""
        request_id = next(self._ids)
        payload = dict(params or {})
        if self.era == REVISION_2026_07_28:
            payload["_meta"] = {**payload.get("_meta", {}), **self._meta()}
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if payload:
            message["params"] = payload
        await self._send(message)
        while True:
            reply = await self._read_line()
            if reply.get("id") == request_id and ("result" in reply or "error" in reply):
                if "error" in reply:
                    raise McpError(reply["error"])
                return reply["result"]
            self.notifications.append(reply)

    async def list_tools(self) -> list[dict[str, Any]]:
        result = await self.request("tools/list")
        tools: list[dict[str, Any]] = result["tools"]
        return tools

    async def call_tool(self, name: str, arguments: Mapping[str, Any]) -> dict[str, Any]:
        result: dict[str, Any] = await self.request(
            "tools/call", {"name": name, "arguments": dict(arguments)}
        )
        return result


def result_text(result: Mapping[str, Any]) -> str:
    """The text blocks of a tool result, joined."""
    return "\n".join(
        block.get("text", "") for block in result.get("content", []) if block.get("type") == "text"
    )
