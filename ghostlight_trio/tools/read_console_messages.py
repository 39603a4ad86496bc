"""``read_console_messages``: the tab's console messages the extension captured, filtered."""

from __future__ import annotations

import attrs

from ..engine.contracts import ToolCall, ToolResult
from .shared.buffers import bounded_limit, buffer_result, console_lines, read_buffer
from .shared.channel import PageChannel


@attrs.frozen
class ReadConsoleMessages:
    """``pattern`` filters the messages; ``onlyErrors`` keeps errors, exceptions and failed
    assertions."""

    _channel: PageChannel

    async def __call__(self, call: ToolCall, tab: int) -> ToolResult:
        answer = await read_buffer(self._channel, call, tab, "console")
        entries = list(answer.get("entries") or [])
        lines, matched, matching = console_lines(
            entries,
            pattern=call.arguments.get("pattern"),
            only_errors=call.arguments.get("onlyErrors") is True,
            limit=bounded_limit(call.arguments.get("limit")),
        )
        return await buffer_result(
            self._channel, call, tab, answer, lines, matched=matched, total=len(entries),
            noun="console", notes=matching,
        )  # fmt: skip
