"""The context tools: list and create workspace tabs, and navigate one.

These are the only tools whose exact results grow a workspace's tab ownership: the root
``tabId`` and every ``tabs[].tabId`` (already composite, mapped through the replying browser's
slot) are adopted atomically, and nothing else is.
"""

from __future__ import annotations

import logging
from typing import Any, TypeGuard

import attrs

from ..browser.errors import BrowserError, BrowserFailure
from ..browser.failures import failure_result
from ..browser.net_errors import error_page_result, http_reason
from ..engine.contracts import (
    ToolCall,
    ToolHandler,
    ToolResult,
    WorkspaceId,
)
from ..governance.urls import normalize_url, not_a_page
from ..transport.bridge import TextBlock
from ..transport.excerpt import excerpt, quoted
from .shared.atomic import atomic_request
from .shared.dialogs import dialog_name, dialog_result, refusal, stopped_result
from .shared.protocols import BrowserRequests, TabOwnership
from .shared.provenance import URL_LIMIT, fenced_place, page_title, page_url

log = logging.getLogger("ghostlight.tools")

TOPOLOGY_TIMEOUT = 30.0
"""Bound on one tab-listing or tab-creating browser request."""
LOAD_WAIT_MS = 10_000
"""How long the extension waits for a navigated tab to finish loading."""
NAVIGATE_TIMEOUT = 25.0
NO_GROUP = -1
"""Chrome's own "no tab group" id, used when the workspace has no group yet."""

NO_TABS_TEXT = (
    "This workspace has no Ghostlight tabs now (none opened yet, or those it had were closed or"
    " moved out of its group). Call tabs_context_mcp with createIfEmpty: true, or"
    " tabs_create_mcp, to open one."
)
NOW_SHOWS = "The tab now shows (its address and title, the page's own words):"
STILL_SHOWS = "The tab still shows (its address and title, the page's own words):"
LISTED = "its address and title, the page's own words"
OUTSIDE_WORKSPACE = (
    "The browser returned tabs outside the requested workspace; nothing was adopted."
)
def context_handlers(workspaces: TabOwnership, browser: BrowserRequests) -> dict[str, ToolHandler]:
    """Handlers for ``tabs_context_mcp``, ``tabs_create_mcp`` and ``navigate``."""
    tools = _ContextTools(workspaces, browser)
    return {
        "tabs_context_mcp": tools.tabs_context,
        "tabs_create_mcp": tools.tabs_create,
        "navigate": tools.navigate,
    }


class _ContextTools:
    def __init__(self, workspaces: TabOwnership, browser: BrowserRequests) -> None:
        self._workspaces = workspaces
        self._browser = browser

    async def _call(
        self, call: ToolCall, ws: WorkspaceId, op: str, args: dict[str, Any], bound: float
    ) -> dict[str, Any]:
        return await atomic_request(call, self._browser, ws, op, args, bound)

    def _claim(self, ws: WorkspaceId, tabs: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The listed tabs this workspace may have: one another workspace owns is left out
        (and logged), never shown here."""
        kept = set(self._workspaces.adopt_unclaimed(ws, [tab["tabId"] for tab in tabs]))
        if len(kept) < len(tabs):
            log.warning("the browser listed %d tab(s) of another workspace; left out",
                        len(tabs) - len(kept))  # fmt: skip
        return [tab for tab in tabs if tab["tabId"] in kept]

    async def _inventory(self, call: ToolCall, ws: WorkspaceId, create: bool) -> dict[str, Any]:
        args = {"createIfEmpty": create, "ownedTabIds": sorted(self._workspaces.owned_tabs(ws))}
        return await self._call(call, ws, "tabs_context", args, TOPOLOGY_TIMEOUT)

    async def tabs_context(self, call: ToolCall) -> ToolResult:
        ws = call.context.workspace_id
        if ws is None:
            return ToolResult.error("tabs_context_mcp needs a workspace; none was given.")
        create = call.arguments.get("createIfEmpty") is True
        try:
            result = await self._inventory(call, ws, create)
        except BrowserFailure as failure:
            return failure_result(failure)
        tabs = self._claim(ws, _tab_list(result))
        group = _group_id(result)
        structured = {"mcpGroupId": group, "tabs": tabs}
        if not tabs:
            return ToolResult.text(NO_TABS_TEXT, structured=structured, workspace_id=ws)
        return ToolResult.text(_listing(group, tabs, ws), structured=structured, workspace_id=ws)

    async def tabs_create(self, call: ToolCall) -> ToolResult:
        ws = call.context.workspace_id
        if ws is None:
            return ToolResult.error("tabs_create_mcp needs a workspace; none was given.")
        try:
            created = await self._call(call, ws, "tabs_create", {}, TOPOLOGY_TIMEOUT)
        except BrowserFailure as failure:
            return failure_result(failure)
        tab_id = created.get("tabId")
        if not _is_tab_id(tab_id) or not self._workspaces.adopt_tabs(ws, [tab_id]):
            return ToolResult.error(OUTSIDE_WORKSPACE)
        group = _group_id(created)
        tabs = _tab_list(created) if "tabs" in created else None
        if tabs is None:
            try:
                await call.effects.checkpoint()
                inventory = await self._inventory(call, ws, False)
            except BrowserFailure:
                inventory = {"tabs": [_tab_entry(created)]}
            tabs = _tab_list(inventory)
            group = _group_id(inventory) if group == NO_GROUP else group
        if tab_id not in {tab["tabId"] for tab in tabs}:
            tabs.append(_tab_entry(created))
        tabs = self._claim(ws, tabs)
        return ToolResult.text(
            f"Created tab {tab_id}.\n{_listing(group, tabs, ws)}",
            structured={"tabId": tab_id, "tabs": tabs},
            workspace_id=ws,
        )

    async def navigate(self, call: ToolCall) -> ToolResult:
        ws = call.context.workspace_id
        if ws is None:
            return ToolResult.error("navigate needs a workspace; none was given.")
        raw = str(call.arguments.get("url", ""))
        tab_id = call.arguments.get("tabId")
        url = normalize_url(raw)
        if url is None:
            return ToolResult.error(not_a_page(raw) or f"Invalid URL: {quoted(raw)}.")
        if not _is_tab_id(tab_id):
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


def _listing(group: int, tabs: list[dict[str, Any]], ws: WorkspaceId) -> str:
    """The workspace's tabs: each one's id, in our words, then its address and title, which
    are its page's, inside the fence (one fence per tab: each has its own origin)."""
    lines = [f"The tabs of this workspace (tab group {group}), each with {LISTED}:"]
    for tab in tabs:
        place = {key: value for key, value in tab.items() if key != "tabId"}
        lines += [f"tabId {tab['tabId']}:", fenced_place(place, ws)]
    return "\n".join(lines)


def _tab_entry(tab: dict[str, Any]) -> dict[str, Any]:
    """A listed tab; its title and addresses as shown (``page_title``, ``page_url``), here and
    in the listing's text alike."""
    entry = {
        "tabId": tab["tabId"],
        "title": page_title(str(tab.get("title") or "")),
        "url": page_url(str(tab.get("url") or "")),
    }
    pending = tab.get("pendingUrl")
    if isinstance(pending, str) and pending:
        entry["pendingUrl"] = page_url(pending)  # navigating there; the tab still shows ``url``
    return entry


def _tab_list(result: dict[str, Any]) -> list[dict[str, Any]]:
    tabs = result.get("tabs")
    if not isinstance(tabs, list):
        return []
    return [
        _tab_entry(tab) for tab in tabs if isinstance(tab, dict) and _is_tab_id(tab.get("tabId"))
    ]


def _group_id(result: dict[str, Any]) -> int:
    group = result.get("groupId")
    return group if isinstance(group, int) and not isinstance(group, bool) else NO_GROUP


def _is_tab_id(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0
