"""``narrate``: a short caption for the person watching what the agent does.

The caption goes in two places. The title of the tab's group carries its words for its whole
time (the extension's ``group_caption``): the browser's own UI, which no page can read or
change, so it is the copy the person can trust. The page's content script also draws it on the
tab (``page/narrate.js``), at the top or bottom edge, taking no clicks, replaced by the next
caption. The page cannot read its words, but it can see that a caption is there and remove it,
cover it or draw a look-alike; the content script puts it back each time it sees that, and the
answer, given once the caption has been watched for its first second (half its time, when
that is shorter), says whether the page left it intact meanwhile. Tampering after that is
undone the same way but not reported.

It is presentation only, so it bypasses the tab's queue and changes nothing the agent relies
on. When the caption cannot be shown somewhere (a page the extension may not script, a tab in
no group), the answer says where and why.
"""

from __future__ import annotations

from typing import Any

import attrs

from ..browser.errors import BrowserError, BrowserRefused, BrowserUnavailable
from ..engine.contracts import ToolCall, ToolResult
from .shared.channel import UNKNOWN_OP, PageChannel
from .shared.guard import ToolInputError

DEFAULT_MS = 5_000
NARRATE_BOUND = 5.0
"""Bound on the page's caption request, which answers after about a second of watching."""
GROUP_BOUND = 5.0
"""Bound on putting the words in the tab group's title."""
TEXT_MAX = 240
"""Characters in one caption. The page cuts a caption at this many UTF-16 units, so text that
needs more (emoji take two) is refused here rather than shown cut short."""
FAILURES = (BrowserError, BrowserRefused, BrowserUnavailable)


@attrs.frozen
class Narrate:
    _channel: PageChannel

    async def __call__(self, call: ToolCall, tab: int) -> ToolResult:
        arguments = call.arguments
        position = str(arguments.get("position", "auto"))
        duration = int(arguments.get("duration_ms", DEFAULT_MS))
        text = _caption(str(arguments["text"]))
        request = {"text": text, "position": position, "durationMs": duration}
        grouped: str | None = "no browser took it"
        try:
            # With no browser at all the first request fails, and the answer says so at once.
            grouped = await self._in_group_title(call, tab, text, duration)
            shown = await self._channel.content(call, tab, "narrate", request, NARRATE_BOUND)
        except FAILURES as failure:
            reason = failure.message.rstrip(".") or "the page did not take it"
            structured = {"shown": False, "position": position, "duration_ms": duration,
                          "replaced": False, "reason": reason, "in_tab_group": grouped is None}  # fmt: skip
            return ToolResult.text(
                f"Narration not shown: {reason}.{_group_sentence(grouped, instead=True)}",
                structured=structured,
            )
        return _answer(shown, position, duration, grouped)

    async def _in_group_title(
        self, call: ToolCall, tab: int, text: str, duration: int
    ) -> str | None:
        """Puts the words in the title of the tab's group; None when they are there, else why
        they are not."""
        args = {"tabId": tab, "text": text, "durationMs": duration}
        try:
            answer = await self._channel.read(call, "group_caption", args, GROUP_BOUND)
        except (BrowserError, BrowserRefused) as failure:
            if isinstance(failure, BrowserError) and failure.code == UNKNOWN_OP:
                return "this extension cannot put it there (it is older than the service)"
            return failure.message.rstrip(".") or "the browser did not take it"
        if answer.get("shown") is True:
            return None
        return str(answer.get("reason") or "the browser did not take it")


def _answer(shown: Any, position: str, duration: int, grouped: str | None) -> ToolResult:
    """The result for the page's answer ``shown``: shown only when the caption was drawn and
    the page neither took it out nor drew over it while it was watched."""
    page = shown if isinstance(shown, dict) else {}
    edge = str(page.get("position", position))
    millis = int(page.get("durationMs", duration))
    removed, covered = _count(page.get("removed")), _count(page.get("covered"))
    watched = _count(page.get("watchedMs"))
    structured: dict[str, Any] = {
        "shown": False,
        "position": edge,
        "duration_ms": millis,
        "replaced": bool(page.get("replaced")),
        "removed": removed or 0,
        "covered": covered or 0,
        "watched_ms": watched or 0,
        "in_tab_group": grouped is None,
    }
    group = _group_sentence(grouped)
    if removed is None or covered is None or watched is None:
        reason = "the page did not say whether the caption stayed up"
        return ToolResult.text(
            f"Narration not shown: {reason}.{group}", structured={**structured, "reason": reason}
        )
    if removed or covered:
        done = [f"took it out {_times(removed)}"] if removed else []
        done += [f"hid it or drew over it {_times(covered)}"] if covered else []
        reason = (
            f"in its first {watched} ms the page {' and '.join(done)} (each time it was put back"
            " on top), so the person watching may have seen the page's own caption instead"
        )
        return ToolResult.text(
            f"Narration not shown intact: {reason}.{group}",
            structured={**structured, "reason": reason},
        )
    cut = " (a later caption replaced it then)" if page.get("cutShort") else ""
    return ToolResult.text(
        f"Narration shown at {edge} for {millis}ms; the page left it intact for the"
        f" {watched} ms it was watched{cut}.{group}",
        structured={**structured, "shown": True},
    )


def _group_sentence(grouped: str | None, *, instead: bool = False) -> str:
    if grouped is None:
        where = "instead" if instead else "too, where pages cannot reach"
        return f" Its words are in the tab group's title {where}."
    return f" It is not in the tab group's title: {grouped}."


def _count(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        return None
    return int(value)


def _times(count: int) -> str:
    return "once" if count == 1 else f"{count} times"


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
