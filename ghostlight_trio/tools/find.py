"""``find``: the page's elements that match a description, strongest first, each with a ref
to act on and what covers it on screen, if anything."""

from __future__ import annotations

import json
from typing import Any

import attrs

from ..engine.contracts import ToolCall, ToolResult
from ..untrusted.excerpt import quoted
from .shared.channel import PageChannel
from .shared.guard import ToolInputError
from .shared.provenance import page_facts, page_result
from .shared.shaping import actionable, element_line

FIND_LIMIT = 20


@attrs.frozen
class Find:
    _channel: PageChannel

    async def __call__(self, call: ToolCall, tab: int) -> ToolResult:
        query = str(call.arguments.get("query", "")).strip()
        if not query:
            raise ToolInputError("query must describe the element to find.")
        found = await self._channel.content(
            call, tab, "find_text", {"query": query, "limit": FIND_LIMIT}, read=True
        )
        ping = await self._channel.page_of(call, tab, found)
        results = [actionable(element) for element in found.get("results", [])]
        more = bool(found.get("more"))
        page = page_facts(tab, ping.get("url", ""), ping.get("title", ""), ping.get("renderSerial"))
        scanned = found.get("scanned") if found.get("capped") else None
        if not results:
            text = f"No elements matching {quoted(query)}."
            if isinstance(scanned, int):
                text = (
                    f"No elements matching {quoted(query)} in the first {scanned} elements of the"
                    " page (the rest was not searched)."
                )
            hidden = found.get("hidden")
            if isinstance(hidden, int) and hidden > 0:
                text += (
                    f" {hidden} control(s) that match are not shown now (in a collapsed section,"
                    " a closed menu, a hidden panel, or outside a box that clips them, like a"
                    " carousel's other slides): show them first, for example by opening a"
                    " collapsed summary or a menu button (read_page marks which are collapsed),"
                    " or moving the carousel."
                )
        else:
            lines = [f"Found {len(results)} element(s), strongest matches first:"]
            loose = found.get("loose")
            if isinstance(loose, dict) and isinstance(loose.get("words"), list):
                words = ", ".join(str(word) for word in loose["words"])
                lines[0] = (
                    f"No element has every word of {quoted(query)}; found {len(results)} that"
                    f" have at least {loose.get('needed')} of its words ({words}), closest"
                    " first:"
                )
            lines += [
                element_line(element, raw.get("text")) + _covered_note(raw)
                for element, raw in zip(results, found.get("results", []), strict=True)
            ]
            if more:
                total = found.get("total", len(results))
                at_least = "at least " if isinstance(scanned, int) else ""
                lines.append(
                    f"[{at_least}{total} elements matched; showing the strongest {len(results)}.]"
                )
            if isinstance(scanned, int):
                lines.append(
                    f"[searched the first {scanned} elements of the page; more may match further"
                    " down]"
                )
            text = "\n".join(lines)
        # Cross-origin frames it could not search: "no match" is not "not on the screen".
        note = found.get("note")
        if isinstance(note, str) and note:
            text += f"\n{note}"
        return page_result(call, text, page, ping, results=results, more=more)


def _covered_note(raw: Any) -> str:
    """What covers an element on screen: a click at its point would land there instead. One
    whose centre its scroll container cuts away is not covered: it needs scrolling into view."""
    clipped = raw.get("clippedBy") if isinstance(raw, dict) else None
    if isinstance(clipped, dict):
        if clipped.get("scrolls"):
            return "; clipped by its scroll container (scroll it into view)"
        return "; its centre is cut off by its container (a click at its point misses it)"
    covering = raw.get("coveredBy") if isinstance(raw, dict) else None
    if not isinstance(covering, dict):
        return ""
    name = json.dumps(str(covering.get("name", ""))[:80], ensure_ascii=False)
    return f"; covered by {covering.get('role', 'an element')} {name} (a click at its point lands there)"
