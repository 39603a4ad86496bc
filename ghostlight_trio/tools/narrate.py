"""``narrate``: a short caption on the tab for the person watching what the agent does.

The page's content script draws it (``page/narrate.js``): at the top or bottom edge, taking no
clicks, unreadable to the page's own scripts, replaced by the next caption. It is presentation
only, so it bypasses the tab's queue and changes nothing the agent relies on. When it cannot be
shown (a page the extension may not script, say) the answer says so and why.
"""

from __future__ import annotations

from typing import Any

from ..browser.errors import BrowserError, BrowserRefused, BrowserUnavailable
from ..engine.contracts import ToolCall, ToolHandler, ToolResult
from .browser_calls import PageChannel, ToolInputError, guarded
from .browser_context import BrowserRequests

DEFAULT_MS = 5_000
NARRATE_BOUND = 5.0
TEXT_MAX = 240
"""Characters in one caption. The page cuts a caption at this many UTF-16 units, so text that
needs more (emoji take two) is refused here rather than shown cut short."""


def narrate_handlers(workspaces: Any, browser: BrowserRequests) -> dict[str, ToolHandler]:
    del workspaces  # ownership is checked by the engine before a handler runs
    return {"narrate": guarded(Narrate(PageChannel(browser)))}


class Narrate:
    def __init__(self, channel: PageChannel) -> None:
        self._channel = channel

    async def __call__(self, call: ToolCall, tab: int) -> ToolResult:
        arguments = call.arguments
        position = str(arguments.get("position", "auto"))
        duration = int(arguments.get("duration_ms", DEFAULT_MS))
        text = _caption(str(arguments["text"]))
        request = {"text": text, "position": position, "durationMs": duration}
        try:
            shown = await self._channel.content(call, tab, "narrate", request, NARRATE_BOUND)
        except (BrowserError, BrowserRefused, BrowserUnavailable) as failure:
            reason = failure.message.rstrip(".") or "the page did not take it"
            structured = {
                "shown": False,
                "position": position,
                "duration_ms": duration,
                "replaced": False,
                "reason": reason,
            }
            return ToolResult.text(f"Narration not shown: {reason}.", structured=structured)
        edge = str(shown.get("position", position))
        millis = int(shown.get("durationMs", duration))
        if shown.get("visible") is False:
            reason = "the page's styles hide it, so the person watching does not see it"
            structured = {"shown": False, "position": edge, "duration_ms": millis,
                          "replaced": bool(shown.get("replaced")), "reason": reason}  # fmt: skip
            return ToolResult.text(f"Narration not shown: {reason}.", structured=structured)
        structured = {
            "shown": True,
            "position": edge,
            "duration_ms": millis,
            "replaced": bool(shown.get("replaced")),
        }
        return ToolResult.text(f"Narration shown at {edge} for {millis}ms.", structured=structured)


def _caption(text: str) -> str:
    """``text`` as the page will show it whole, or ToolInputError: blank text or text the page
    would cut is the caller's to fix, not a caption that could not be shown."""
    if not text.replace("\ufeff", " ").strip():
        raise ToolInputError("narrate needs some text to show; nothing was shown.")
    units = len(text.encode("utf-16-le")) // 2
    if units > TEXT_MAX:
        raise ToolInputError(
            f"text is too long for a caption: its {len(text)} characters count as {units}, and a"
            f" caption holds {TEXT_MAX} (an emoji and some other characters count as two);"
            " nothing was shown. Shorten it."
        )
    return text
