"""``read_network_requests``: the tab's network requests the extension captured, filtered."""

from __future__ import annotations

import attrs

from ..engine.contracts import ToolCall, ToolResult
from .shared.buffers import (
    bounded_limit,
    buffer_result,
    network_lines,
    read_buffer,
    withheld_request,
)
from .shared.channel import PageChannel


@attrs.frozen
class ReadNetworkRequests:
    """``urlPattern`` filters the requests. A request to a site the workspace may not read is
    listed without its address (``withheld_request``)."""

    _channel: PageChannel

    async def __call__(self, call: ToolCall, tab: int) -> ToolResult:
        answer = await read_buffer(self._channel, call, tab, "network")
        entries = [withheld_request(call, entry) for entry in answer.get("entries") or []]
        lines, matched = network_lines(
            entries,
            url_pattern=call.arguments.get("urlPattern"),
            limit=bounded_limit(call.arguments.get("limit")),
        )
        return await buffer_result(
            self._channel, call, tab, answer, lines, matched=matched, total=len(entries),
            noun="network",
        )  # fmt: skip
