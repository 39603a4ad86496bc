"""``get_page_text``: the page's readable text (its main element's, then its frames'), fenced
as the page's own words."""

from __future__ import annotations

import attrs

from ..engine.contracts import ToolCall, ToolResult
from .shared.channel import PageChannel
from .shared.provenance import page_facts, page_result

PAGE_TEXT_DEFAULT = 50_000
PAGE_TEXT_MAX = 2_000_000
"""As read_page's own bound: more text than an agent can use, and well inside the bridge's
16 MiB frame, so the answer always arrives."""


@attrs.frozen
class GetPageText:
    _channel: PageChannel

    async def __call__(self, call: ToolCall, tab: int) -> ToolResult:
        limit = call.arguments.get("max_chars")
        max_chars = (
            min(int(limit), PAGE_TEXT_MAX)
            if isinstance(limit, int | float) and limit >= 1
            else PAGE_TEXT_DEFAULT
        )
        taken = "" if limit is None or limit == max_chars else (
            f"\n[max_chars {limit:g} is not a whole number from 1 to {PAGE_TEXT_MAX};"
            f" {max_chars} was used.]"
        )
        got = await self._channel.content(
            call, tab, "page_text", {"max_chars": max_chars}, read=True
        )
        ping = await self._channel.content(call, tab, "ping", read=True)
        body = str(got.get("text", ""))
        if got.get("note"):
            body = f"{body}\n{got['note']}" if body else str(got["note"])
        source = str(got.get("source", "body"))
        frames = got.get("frames")
        if isinstance(frames, int) and frames > 0:
            source += f", then the text of {frames} frame(s) in it"
        text = f"Source element: {source}\n\n{body}{taken}"
        page = page_facts(
            tab, str(got.get("url", "")), str(got.get("title", "")), ping.get("renderSerial")
        )
        return page_result(call, text, page, ping)
