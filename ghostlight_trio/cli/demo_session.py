"""The agent's part of the demo: the MCP calls it makes, and what it prints of their answers."""

from __future__ import annotations

import base64
from typing import Any

import trio

from ..transport.endpoints import Endpoints
from .demo_guard import refused_by_switch
from .mcp_client import McpClient, result_text

DEMO_NAME = "Ada"


class DemoRefused(RuntimeError):
    """A call was refused or failed; the message says why (and, for a switch, how to lift it)."""


def show(result: dict[str, Any], limit: int = 600) -> None:
    text = result_text(result)
    marker = "      ! " if result.get("isError") else "      | "
    for line in text[:limit].splitlines():
        print(marker + line)


class AgentSession:
    """One MCP session driving one tab of the demo instance, as an agent's client would."""

    def __init__(self, client: McpClient, endpoints: Endpoints) -> None:
        self.client = client
        self.endpoints = endpoints
        self.tab_id: int | None = None

    async def call(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """Call a tool; a refusal ends the demo with its reason instead of a later puzzle."""
        result = await self.client.call_tool(name, arguments)
        if result.get("isError"):
            text = result_text(result)
            switch = refused_by_switch(self.endpoints, text)
            raise DemoRefused(switch or f"{name} failed: {text[:400]}")
        return result

    async def read(self, page_url: str, tool_names: list[str]) -> None:
        """Open a tab in the agent's own workspace, navigate to the page and read it."""
        created = await self.call("tabs_create_mcp", {})
        show(created)
        tab_id = (created.get("structuredContent") or {}).get("tabId")
        if tab_id is None:
            raise DemoRefused("tabs_create_mcp returned no tab id")
        self.tab_id = tab_id
        show(await self.call("navigate", {"url": page_url, "tabId": tab_id}))
        if "get_page_text" in tool_names:
            show(await self.call("get_page_text", {"tabId": tab_id}))
        else:
            show(await self.call("tabs_context_mcp", {}))

    async def act(self) -> None:
        """Type a name into the page's field and click Greet, showing each interaction receipt:
        what the page showed after the action, observed rather than assumed."""
        filled = await self.call(
            "act_on",
            {"tabId": self.tab_id, "target": {"query": "Name"}, "action": "set_value", "value": DEMO_NAME},
        )
        show(filled)
        clicked = await self.call(
            "act_on",
            {
                "tabId": self.tab_id,
                "target": {"name": "Greet", "role": "button"},
                "action": "left_click",
                "expect": {"text": f"Hello, {DEMO_NAME}!", "timeout_ms": 5000},
            },
        )
        show(clicked, limit=1200)

    async def screenshot(self, out: str) -> None:
        shot = await self.call("computer", {"action": "screenshot", "tabId": self.tab_id})
        for block in shot.get("content", []):
            if block.get("type") == "image":
                try:
                    await trio.Path(out).write_bytes(base64.b64decode(block["data"]))
                except OSError as exc:  # checked at the start; it changed since
                    raise DemoRefused(f"cannot write {out}: {exc}") from None
                print(f"      | screenshot written to {out}")
                return
        show(shot)

