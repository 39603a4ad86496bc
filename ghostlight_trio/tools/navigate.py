"""``navigate``: send a workspace tab to a URL (or back, or forward) and say where it is.

The URL is completed as the address bar completes it (``governance.urls``), the same way the
gate judged it. Where the tab ends up and its title are the page's to set, so they are named
only inside the fence. A cancel ends the wait for the page, never the navigation itself.
"""

from __future__ import annotations

import attrs

from ..browser.errors import BrowserError, BrowserFailure
from ..browser.failures import failure_result
from ..browser.net_errors import error_page_result, http_reason
from ..engine.contracts import ToolCall, ToolResult
from ..governance.urls import normalize_url, not_a_page
from ..transport.bridge import TextBlock
from ..untrusted.excerpt import excerpt, quoted
from .shared.atomic import atomic_request
from .shared.dialogs import dialog_name, dialog_result, refusal, stopped_result
from .shared.guard import is_tab_id
from .shared.protocols import BrowserRequests
from .shared.provenance import URL_LIMIT, fenced_place, page_title, page_url

LOAD_WAIT_MS = 10_000
"""How long the extension waits for a navigated tab to finish loading."""
NAVIGATE_TIMEOUT = 25.0
NOW_SHOWS = "The tab now shows (its address and title, the page's own words):"
STILL_SHOWS = "The tab still shows (its address and title, the page's own words):"


@attrs.frozen
class Navigate:
    _browser: BrowserRequests

    async def __call__(self, call: ToolCall) -> ToolResult:
        ws = call.context.workspace_id
        if ws is None:
            return ToolResult.error("navigate needs a workspace; none was given.")
        raw = str(call.arguments.get("url", ""))
        tab_id = call.arguments.get("tabId")
        url = normalize_url(raw)
        if url is None:
            return ToolResult.error(not_a_page(raw) or f"Invalid URL: {quoted(raw)}.")
        if not is_tab_id(tab_id):
            return ToolResult.error("tabId must be a tab id from tabs_context_mcp.")
        args = {"tabId": int(tab_id), "url": url, "timeoutMs": LOAD_WAIT_MS}
        try:
            # Once the navigation is asked for, the rest is a wait for its page: a cancel ends
            # that wait (the navigation goes on) instead of holding the tab for the whole load.
            result = await atomic_request(
                call, self._browser, ws, "navigate", args, NAVIGATE_TIMEOUT, wait_ends_on_cancel=True
            )
        except BrowserError as error:
            # A beforeunload dialog already open: the page is being asked to leave, and another
            # navigation would only wait behind that answer.
            stop = refusal(error)
            return failure_result(error) if stop is None else stopped_result(
                call, int(tab_id), "navigate", stop
            )
        except BrowserFailure as failure:
            return failure_result(failure)
        # Where the tab is, and its title, are the page's to set (a redirect, a script's
        # history.pushState, document.title): named only inside the fence, as shown there.
        final_url = page_url(str(result.get("url", "")))
        title = page_title(str(result.get("title", "")))
        structured = {"tabId": int(tab_id), "url": final_url, "title": title}
        place = {"url": final_url, "title": title}
        asked = excerpt(url, URL_LIMIT)
        dialog = result.get("dialog")
        if isinstance(dialog, dict):
            # e.g. beforeunload: the page asks first, and the navigation waits for the answer.
            lead = (
                f"The navigation of tab {int(tab_id)} to {asked} started, but"
                f" {dialog_name(dialog)} opened; the tab still shows the page it had (named at"
                " the end) and the navigation waits for the answer."
            )
            answer = dialog_result(call, int(tab_id), lead, dialog, structured=structured)
            return _ending_with(answer, f"{STILL_SHOWS}\n{fenced_place(place, ws)}")
        if result.get("errorPage") is True:
            answer = error_page_result(asked, result, structured)
            return _ending_with(answer, f"{NOW_SHOWS}\n{fenced_place(place, ws)}")
        pending = result.get("pendingUrl")
        if isinstance(pending, str) and pending:
            pending = page_url(pending)
            going = fenced_place(place | {"pendingUrl": pending}, ws)
            return ToolResult.text(
                f"The navigation to {asked} is under way but the page has not answered within"
                f" {LOAD_WAIT_MS // 1000} s; the tab still shows the page it had until it does."
                " Check with tabs_context or wait_for before acting on the page. The tab, and"
                f" where it is going (pendingUrl):\n{going}",
                structured=structured | {"pendingUrl": pending},
            )
        if result.get("noPage") is True and not url.lower().startswith("data:"):
            return ToolResult.text(
                f"The browser went to {asked}, and the answer was not a page to show: most"
                " likely a file, which the browser downloads instead (into its downloads"
                " folder), or an empty response (HTTP 204). Do not navigate there again to"
                f" retry: each time downloads the file again. {STILL_SHOWS}\n"
                f"{fenced_place(place, ws)}",
                structured=structured | {"noPage": True},
            )
        if result.get("started") is False or result.get("noPage") is True:
            # Never started, or a data: URL Chrome took and then refused to open.
            waited = "" if result.get("noPage") is True else f" within {LOAD_WAIT_MS // 1000} s"
            return ToolResult.text(
                f"The navigation to {asked} did not start{waited}: the browser shows no"
                " navigation under way. Some URLs do not open this way: data: URLs, and a link"
                " to a file, which starts a download instead of showing a page."
                f" {STILL_SHOWS}\n{fenced_place(place, ws)}",
                kind="tool_error",
                structured=structured,
            )
        suffix = "" if result.get("loaded", True) else " (still loading)"
        closed = result.get("closedDialog")
        if isinstance(closed, dict):
            suffix += f"; the {closed.get('type', 'JavaScript')} dialog that was open is closed"
        status = result.get("httpStatus")
        if type(status) is int and status >= 400:
            # The server's own error page loaded: a page, but not the one asked for.
            structured["httpStatus"] = status
            suffix += f", but the server answered HTTP {status}{http_reason(status)}: the page is its error page"
        went = f"Navigated {url}" if url in ("back", "forward") else f"Navigated to {asked}"
        return ToolResult.text(
            f"{went}{suffix}. {NOW_SHOWS}\n{fenced_place(place, ws)}", structured=structured
        )


def _ending_with(result: ToolResult, words: str) -> ToolResult:
    """``result`` with ``words`` as a last line of its text."""
    content = list(result.content)
    for index in range(len(content) - 1, -1, -1):
        block = content[index]
        if isinstance(block, TextBlock):
            content[index] = TextBlock(text=f"{block.text}\n{words}")
            return attrs.evolve(result, content=content)
    return attrs.evolve(result, content=[*content, TextBlock(text=words)])
