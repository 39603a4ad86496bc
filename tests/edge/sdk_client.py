"""Drive the connector with the official MCP Python SDK (a dev-only test client).

usage: python sdk_client.py {2025-11-25|2026-07-28|auto} <server command> [args...]
Prints one JSON summary line on stdout.
"""

from __future__ import annotations

import json
import os
import sys

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters

SDK_MODES = {"2025-11-25": "legacy", "2026-07-28": "2026-07-28", "auto": "auto"}
"""Each revision (or ``auto``) as the SDK's ``Client(mode=...)`` spells it."""


def _text(result: object) -> str:
    blocks = getattr(result, "content", []) or []
    return "\n".join(getattr(b, "text", "") for b in blocks)


async def main(mode: str, command: list[str]) -> None:
    params = StdioServerParameters(command=command[0], args=command[1:], env=dict(os.environ))
    async with Client(params, mode=SDK_MODES[mode], read_timeout_seconds=20, cache=None) as client:
        names: list[str] = []
        cursor = None
        while True:
            page = await client.list_tools(cursor=cursor)
            names += [tool.name for tool in page.tools]
            cursor = page.next_cursor
            if cursor is None:
                break
        ok = await client.call_tool(
            "update_plan", {"domains": ["example.com"], "approach": ["read"]}
        )
        bad = await client.call_tool("update_plan", {"domains": "x"})
        try:  # a request over the connector's line ceiling still gets its own answer
            await client.call_tool("update_plan", {"domains": ["x" * 5_000_000], "approach": []})
            oversized = "answered as a success"
        except Exception as exc:  # noqa: BLE001 - any failure is reported for the test to judge
            oversized = f"{type(exc).__name__}: {exc}"
        print(
            json.dumps(
                {
                    "protocol_version": client.protocol_version,
                    "tools": names,
                    "ok_error": bool(ok.is_error),
                    "ok_text": _text(ok),
                    "bad_error": bool(bad.is_error),
                    "bad_text": _text(bad),
                    "oversized": oversized,
                }
            ),
            flush=True,
        )


if __name__ == "__main__":
    anyio.run(main, sys.argv[1], sys.argv[2:])
