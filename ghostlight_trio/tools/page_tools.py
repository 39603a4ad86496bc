"""The trained page tools beyond the context tools: one factory, one handler per tool.

``computer`` lives in ``computer.py``; the content-script readers, ``javascript_tool``, the
console/network buffers and ``resize_window`` live here. Page-sourced text is always fenced as
untrusted page content (see ``provenance.py``).
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from ..engine.contracts import ToolCall, ToolHandler, ToolResult
from ..transport.bridge import TextBlock
from ..transport.excerpt import quoted
from .computer.tool import ComputerTool
from .javascript_tool import JavascriptTool
from .shared.buffers import (
    bounded_limit,
    buffer_notes,
    console_lines,
    limit_notes,
    network_lines,
    withheld_request,
)
from .shared.channel import PageChannel, ToolInputError, guarded
from .shared.dialogs import PageDialog, dialog_name, dialog_result
from .shared.field_input import set_value
from .shared.field_values import OVER_LIMIT_NOTE, changed, refused_value
from .shared.image_store import ImageStore
from .shared.protocols import BrowserRequests
from .shared.provenance import fenced_place, page_facts, page_url, provenance, wrap_page_text
from .shared.receipts import settled_receipt
from .shared.screenshots import ContextBook
from .shared.shaping import actionable, element_line, redact_secrets, tree_diff

FIND_LIMIT = 20
PAGE_TEXT_DEFAULT = 50_000
PAGE_TEXT_MAX = 2_000_000
"""As read_page's own bound: more text than an agent can use, and well inside the bridge's
16 MiB frame, so the answer always arrives."""
CAPTURE_BOUND = 20.0
VIEWPORT_MIN = 100
VIEWPORT_MAX = 16_384
BASELINE_READS = 512
"""Last read_page trees kept for ``diff``, one per tab and set of read options."""


def page_tool_handlers(
    workspaces: Any,
    browser: BrowserRequests,
    *,
    redact: Callable[[], bool] = lambda: True,
    contexts: ContextBook | None = None,
    images: ImageStore | None = None,
) -> dict[str, ToolHandler]:
    """Handlers for computer, find, form_input, get_page_text, javascript_tool,
    read_console_messages, read_network_requests, read_page and resize_window. ``redact`` says,
    at each read, whether password-like field values are hidden (the user's setting).
    ``contexts`` (screenshot coordinate models) and ``images`` (screenshots kept for
    upload_image) are shared with the tools that place images by screenshot coordinates."""
    del workspaces  # ownership is checked by the engine before a handler runs
    tools = _PageTools(PageChannel(browser), redact, contexts or ContextBook(), images)
    return {
        "computer": tools.computer,
        "find": guarded(tools.find),
        "form_input": guarded(tools.form_input),
        "get_page_text": guarded(tools.get_page_text),
        "javascript_tool": guarded(tools.javascript),
        "read_console_messages": guarded(tools.read_console),
        "read_network_requests": guarded(tools.read_network),
        "read_page": guarded(tools.read_page),
        "resize_window": guarded(tools.resize_window),
    }


class _PageTools:
    def __init__(
        self,
        channel: PageChannel,
        redact: Callable[[], bool],
        contexts: ContextBook,
        images: ImageStore | None,
    ) -> None:
        self._channel = channel
        self._redact = redact
        self._contexts = contexts
        self.computer = ComputerTool(channel, self._contexts, images)
        self.javascript = JavascriptTool(channel, self._page_result)
        self._baselines: OrderedDict[tuple[int, tuple[Any, ...]], tuple[str, str]] = OrderedDict()

    def _page_result(
        self,
        call: ToolCall,
        text: str,
        page: dict[str, Any],
        ping: dict[str, Any] | None = None,
        **extra: Any,
    ) -> ToolResult:
        """Page-sourced text fenced as untrusted, with page facts and provenance. A tab on
        its way to another page (``ping`` names its pending URL) says the text is of the page
        it is leaving."""
        ws = call.context.workspace_id
        origin = page["origin"]
        structured = {"page": page, **extra, "provenance": provenance(ws, origin)}
        fenced = wrap_page_text(text, ws, origin)
        pending = (ping or {}).get("pendingUrl")
        if isinstance(pending, str) and pending:
            # Where it goes is the page's to say (a script sets location): fenced, as shown.
            pending = structured["pendingUrl"] = page_url(pending)
            fenced = (
                "The tab is navigating to another page (pendingUrl, first below), which has not"
                " loaded yet: what follows it is the page it is leaving.\n"
                f"{fenced_place({'pendingUrl': pending}, ws)}\n{fenced}"
            )
        return ToolResult.text(fenced, structured=structured)

    # --- content-script readers --------------------------------------------------------------

    async def find(self, call: ToolCall, tab: int) -> ToolResult:
        query = str(call.arguments.get("query", "")).strip()
        if not query:
            raise ToolInputError("query must describe the element to find.")
        found = await self._channel.content(
            call, tab, "find_text", {"query": query, "limit": FIND_LIMIT}, read=True
        )
        ping = await self._channel.content(call, tab, "ping", read=True)
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
        return self._page_result(call, text, page, ping, results=results, more=more)

    async def form_input(self, call: ToolCall, tab: int) -> ToolResult:
        ref = str(call.arguments.get("ref", ""))
        value = call.arguments.get("value")
        before = await self._channel.content(call, tab, "observe", {}, read=True)
        try:
            done = await set_value(self._channel, call, tab, ref, value)
        except PageDialog as stop:
            if not stop.delivered:
                raise
            lead = (
                f"Set {ref}: the value was delivered and {dialog_name(stop.dialog)} opened on"
                f" tab {tab} while the page handled it; it is still open."
            )
            return dialog_result(call, tab, lead, stop.dialog)
        shown = "[value redacted]" if done.get("secret") else json.dumps(value, ensure_ascii=False)
        if refused_value(done, value):
            return ToolResult.error(
                f"{ref} did not take {shown}: the field cannot hold that value and is empty now"
                " (for example a date it cannot read, or letters in a number field)."
            )
        summary = f"Set {ref} = {shown}."
        if not done.get("secret") and changed(done, value):
            held = json.dumps(done.get("value"), ensure_ascii=False)
            summary = f"Set {ref} = {held} (asked {shown}; the field changed it)."
        if done.get("invalid"):
            summary += f" The browser would refuse this value on submit: {done['invalid']}."
        if done.get("overLimit"):
            summary += f" {OVER_LIMIT_NOTE.format(done['overLimit'])}"
        await call.effects.checkpoint()
        try:
            return await settled_receipt(
                "form_input",
                tab,
                summary,
                before,
                lambda: self._channel.content(call, tab, "observe", {"ref": ref}, read=True),
                assurance="ref",
                workspace_id=call.context.workspace_id,
            )
        except PageDialog as stop:
            lead = f"{summary} Then {dialog_name(stop.dialog)} opened on tab {tab}."
            return dialog_result(call, tab, lead, stop.dialog)

    async def get_page_text(self, call: ToolCall, tab: int) -> ToolResult:
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
        return self._page_result(call, text, page, ping)

    async def read_page(self, call: ToolCall, tab: int) -> ToolResult:
        args: dict[str, Any] = {}
        for key in ("filter", "depth", "ref_id", "max_chars"):
            if call.arguments.get(key) is not None:
                args[key] = call.arguments[key]
        tree = await self._channel.content(call, tab, "read_page", args, read=True)
        ping = await self._channel.content(call, tab, "ping", read=True)
        url = str(ping.get("url", ""))
        page = page_facts(tab, url, str(ping.get("title", "")), tree.get("renderSerial"))
        text = redact_secrets(str(tree.get("text", "")), redact=self._redact())
        extra: dict[str, Any] = {}
        if "ref_id" in args:
            target = await self._channel.content(
                call, tab, "element_rect", {"ref": args["ref_id"]}, read=True
            )
            extra["target"] = actionable(target)
        else:
            view = (args.get("filter"), args.get("depth"), args.get("max_chars"))
            text = self._diffed((tab, view), url, text, bool(call.arguments.get("diff")))
        return self._page_result(call, text, page, ping, **extra)

    def _diffed(self, key: tuple[int, tuple[Any, ...]], url: str, text: str, diff: bool) -> str:
        """Record a full read as the baseline of its tab and options (a tree read with another
        filter, depth or max_chars lists other elements, so it is no baseline for this one);
        with ``diff``, answer the changes since the last read like it."""
        previous = self._baselines.get(key)
        self._baselines[key] = (url, text)
        self._baselines.move_to_end(key)
        while len(self._baselines) > BASELINE_READS:
            self._baselines.popitem(last=False)
        if not diff:
            return text
        if previous is None:
            return f"(no baseline: no earlier read of this page with these options; full tree)\n{text}"
        if previous[0] != url:
            return f"(no baseline: the tab shows another page now; full tree)\n{text}"
        return tree_diff(previous[1], text)

    # --- buffers -----------------------------------------------------------------------------

    async def _capture(self, call: ToolCall, tab: int, kind: str) -> dict[str, Any]:
        args = {"tabId": tab, "kind": kind, "clear": call.arguments.get("clear") is True}
        # Reading (and clearing) what the extension captured touches nothing in the page: a
        # read left unanswered is an error, and the tab stays usable.
        return await self._channel.read(call, "capture_read", args, CAPTURE_BOUND)

    async def read_console(self, call: ToolCall, tab: int) -> ToolResult:
        answer = await self._capture(call, tab, "console")
        entries = list(answer.get("entries") or [])
        lines, matched, matching = console_lines(
            entries,
            pattern=call.arguments.get("pattern"),
            only_errors=call.arguments.get("onlyErrors") is True,
            limit=bounded_limit(call.arguments.get("limit")),
        )
        notes = matching + limit_notes(call.arguments.get("limit"))
        notes += buffer_notes(answer, total=len(entries), matched=matched, noun="console")
        return await self._buffer_result(call, tab, lines, notes, matched, answer)

    async def read_network(self, call: ToolCall, tab: int) -> ToolResult:
        answer = await self._capture(call, tab, "network")
        entries = [withheld_request(call, entry) for entry in answer.get("entries") or []]
        lines, matched = network_lines(
            entries,
            url_pattern=call.arguments.get("urlPattern"),
            limit=bounded_limit(call.arguments.get("limit")),
        )
        notes = limit_notes(call.arguments.get("limit"))
        notes += buffer_notes(answer, total=len(entries), matched=matched, noun="network")
        return await self._buffer_result(call, tab, lines, notes, matched, answer)

    async def _buffer_result(
        self,
        call: ToolCall,
        tab: int,
        lines: list[str],
        notes: list[str],
        matched: int,
        answer: dict[str, Any],
    ) -> ToolResult:
        page = await self._channel.tab_page(call, tab)
        head = f"{len(lines)} of {matched} matching entries (newest last)." if lines else ""
        parts = [part for part in (head, "\n".join(lines)) if part]
        cleared = " The buffer was cleared after this read." if call.arguments.get("clear") else ""
        own = ("\n".join(notes) + cleared).strip()
        if not parts:
            return ToolResult.text(
                own,
                structured={
                    "page": page,
                    "provenance": provenance(call.context.workspace_id, page["origin"]),
                },
            )
        result = self._page_result(call, "\n".join(parts), page)
        if own:
            return ToolResult(
                kind="ok",
                content=[*result.content, TextBlock(text=own)],
                structured=result.structured,
            )
        return result

    # --- viewport ----------------------------------------------------------------------------

    async def resize_window(self, call: ToolCall, tab: int) -> ToolResult:
        """Sets the tab's own viewport (CDP device metrics), not its window: workspaces share
        windows, and resizing one would change every other tab in it, other workspaces' and
        the user's own included. The page's own report of its size is the answer."""
        width, height = call.arguments.get("width"), call.arguments.get("height")
        if not (_positive(width) and _positive(height)):
            raise ToolInputError("width and height must be positive numbers of pixels.")
        assert isinstance(width, int | float) and isinstance(height, int | float)
        size = round(width), round(height)
        if not all(VIEWPORT_MIN <= side <= VIEWPORT_MAX for side in size):
            raise ToolInputError(
                f"width and height must be between {VIEWPORT_MIN} and {VIEWPORT_MAX} pixels;"
                f" got {size[0]}x{size[1]}."
            )
        metrics = {"width": size[0], "height": size[1], "deviceScaleFactor": 0, "mobile": False}
        await self._channel.cdp(call, tab, "Emulation.setDeviceMetricsOverride", metrics)
        self._contexts.invalidate([tab])
        seen = await self._channel.cdp(
            call,
            tab,
            "Runtime.evaluate",
            {"expression": "[innerWidth, innerHeight]", "returnByValue": True},
            read=True,
        )
        shown = (seen.get("result") or {}).get("value")
        text = (
            f"Set tab {tab}'s viewport to {size[0]}x{size[1]} CSS px: this tab only (other tabs"
            " in its window, yours or not, keep their size); the next screenshot has the new"
            " size."
        )
        if isinstance(shown, list) and [round(v) for v in shown if _positive(v)] != list(size):
            text += f" The page reports {shown[0]}x{shown[1]}."
        return ToolResult.text(text)


def _positive(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and value > 0


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

