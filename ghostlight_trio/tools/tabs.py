"""``tabs_context_mcp`` and ``tabs_create_mcp``: list and create a workspace's tabs.

These are the only tools whose exact results grow a workspace's tab ownership: the root
``tabId`` and every ``tabs[].tabId`` (already composite, mapped through the replying browser's
slot) are adopted atomically, and nothing else is.
"""

from __future__ import annotations

import logging
from typing import Any

import attrs
import trio

from ..browser.errors import BrowserFailure
from ..browser.failures import failure_result
from ..engine.contracts import ToolCall, ToolResult, WorkspaceId
from .shared.atomic import atomic_request
from .shared.guard import is_tab_id
from .shared.protocols import BrowserRequests, TabOwnership
from .shared.provenance import fenced_place, page_title, page_url

log = logging.getLogger("ghostlight.tools")

TABS_MADE_AT_ONCE = 4
"""Tabs the browser is asked to make at the same time. Making a tab is the browser's own work
(a page process, its group, its debugger session): asked for many at once, it shares itself
among all of them and every one finishes late, at about the time the last does. A few at a
time, the first ones are answered early and the whole takes no longer."""
TOPOLOGY_TIMEOUT = 30.0
"""Bound on one tab-listing or tab-creating browser request."""
NO_GROUP = -1
"""Chrome's own "no tab group" id, used when the workspace has no group yet."""
NO_TABS_TEXT = (
    "This workspace has no Ghostlight tabs now (none opened yet, or those it had were closed or"
    " moved out of its group). Call tabs_context_mcp with createIfEmpty: true, or"
    " tabs_create_mcp, to open one."
)
LISTED = "its address and title, the page's own words"
OUTSIDE_WORKSPACE = (
    "The browser returned tabs outside the requested workspace; nothing was adopted."
)


@attrs.frozen
class TabTools:
    """Both tools' handlers (``tabs_context``, ``tabs_create``), over one workspace registry."""

    _workspaces: TabOwnership
    _browser: BrowserRequests
    _making: trio.Semaphore = attrs.field(factory=lambda: trio.Semaphore(TABS_MADE_AT_ONCE))

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
            async with self._making:
                created = await self._call(call, ws, "tabs_create", {}, TOPOLOGY_TIMEOUT)
        except BrowserFailure as failure:
            return failure_result(failure)
        tab_id = created.get("tabId")
        if not is_tab_id(tab_id) or not self._workspaces.adopt_tabs(ws, [tab_id]):
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
        _tab_entry(tab) for tab in tabs if isinstance(tab, dict) and is_tab_id(tab.get("tabId"))
    ]


def _group_id(result: dict[str, Any]) -> int:
    group = result.get("groupId")
    return group if isinstance(group, int) and not isinstance(group, bool) else NO_GROUP

