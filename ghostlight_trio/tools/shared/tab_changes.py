"""A call's answer names the tabs that opened from its tab, and the workspace's tabs that
closed, while it ran: an agent whose click opened a popup learns its tab id at once, instead of
finding it at its next listing (or never). Observation, not causation."""

from __future__ import annotations

from collections.abc import Mapping

import attrs

from ...browser.tab_journal import TabDelta, TabJournal
from ...engine.contracts import ToolCall, ToolHandler, ToolResult
from ...engine.resources import tab_id_argument
from ...transport.bridge import TextBlock
from .protocols import TabOwners


def noting_tab_changes(
    handlers: Mapping[str, ToolHandler], journal: TabJournal, owners: TabOwners
) -> dict[str, ToolHandler]:
    """``handlers``, each answering also with what happened to the workspace's tabs meanwhile."""
    return {name: _noting(handler, journal, owners) for name, handler in handlers.items()}


def _noting(handler: ToolHandler, journal: TabJournal, owners: TabOwners) -> ToolHandler:
    async def noted(call: ToolCall) -> ToolResult:
        tab = tab_id_argument(call.arguments) if "tabId" in call.arguments else None
        workspace = call.context.workspace_id
        if tab is None or workspace is None:
            return await handler(call)
        cursor = journal.cursor()
        result = await handler(call)
        delta = journal.since(cursor, workspace, tab)
        if delta is None:
            return result
        # Only tabs still this workspace's are named as usable (one may have closed, or the
        # user may have moved it to another group, since).
        opened = tuple((t, active) for t, active in delta.opened if owners.verify_tab(workspace, t))
        delta = TabDelta(opened, delta.closed, delta.more)
        if not delta.opened and not delta.closed:
            return result
        return attrs.evolve(
            result,
            structured={**(result.structured or {}), "tabDelta": delta.structured()},
            content=[*result.content, TextBlock(text=_note(delta))],
        )

    return noted


def _note(delta: TabDelta) -> str:
    lines = []
    for tab, active in delta.opened:
        where = ", now the active tab" if active else ""
        lines.append(
            f"Tab {tab} opened from this tab during the call (it is in this workspace{where});"
            f" pass tabId {tab} to work in it."
        )
    if delta.closed:
        lines.append(
            "Closed during the call: tab " + ", ".join(str(tab) for tab in delta.closed) + "."
        )
    if delta.more:
        lines.append("More tabs opened or closed than are named here; list them with tabs_context_mcp.")
    return "\n".join(lines)
