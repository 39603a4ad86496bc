"""Doubles shared by the tool tests: the engine's effect hooks and a tool call."""

from __future__ import annotations

from typing import Any

import trio

from ghostlight_trio.engine.contracts import ToolCall, WorkContext, WorkspaceId


class Effects:
    """Runs each effect at once and counts atomic effects and checkpoints."""

    def __init__(self) -> None:
        self.atomic_calls = 0
        self.checkpoints = 0

    async def atomic(self, effect: Any) -> Any:
        self.atomic_calls += 1
        return await effect()

    async def checkpoint(self) -> None:
        self.checkpoints += 1
        await trio.lowlevel.checkpoint()

    def progress(self, *args: Any, **kwargs: Any) -> None:
        pass

    def done_so_far(self, what: str) -> None:
        pass


def tool_call(tool: str, **arguments: Any) -> ToolCall:
    """A call of ``tool`` in workspace ``ws`` on tab 7 (unless ``tabId`` is given)."""
    context = WorkContext("w1", tool, WorkspaceId("ws"))
    return ToolCall(context=context, arguments={"tabId": 7, **arguments}, effects=Effects())
