"""``tab_control``: focus, reload or close a workspace tab (wire op ``tab_control``), with an
interaction receipt of what the browser then reports."""

from __future__ import annotations

from typing import Any

import attrs

from ..browser.errors import BrowserFailure
from ..engine.contracts import ToolCall, ToolResult
from .shared.channel import INFO_BOUND, PageChannel
from .shared.dialogs import PageDialog, dialog_name, dialog_result
from .shared.guard import ToolInputError
from .shared.protocols import Workspaces
from .shared.provenance import page_facts
from .shared.receipts import receipt_result

TAB_ACTIONS = ("focus", "reload", "close")
TAB_BOUND = 15.0
"""Bound on a focus or close request."""
RELOAD_WAIT_MS = 15_000
"""How long the extension waits for the reloaded document to complete."""
RELOAD_BOUND = 25.0
PING_BOUND = 5.0


@attrs.frozen
class TabControl:
    _channel: PageChannel
    _workspaces: Workspaces

    async def _tab_info(self, call: ToolCall, tab: int) -> dict[str, Any]:
        return await self._channel.read(call, "tab_info", {"tabId": tab}, INFO_BOUND)

    async def _render_serial(self, call: ToolCall, tab: int) -> int:
        """The page's render serial, or 0 where no content script can run (best effort)."""
        try:
            value = await self._channel.content(call, tab, "ping", bound=PING_BOUND, read=True)
        except (BrowserFailure, PageDialog):
            return 0
        serial = value.get("renderSerial") if isinstance(value, dict) else None
        return serial if isinstance(serial, int) else 0

    async def __call__(self, call: ToolCall, tab: int) -> ToolResult:
        action = call.arguments.get("action")
        if action not in TAB_ACTIONS:
            raise ToolInputError('action must be "focus", "reload" or "close".')
        before = await self._tab_info(call, tab)
        try:
            return await self._tab_action(call, tab, str(action), before)
        except PageDialog as stop:
            if not stop.delivered:
                raise
            name = dialog_name(stop.dialog)
            if action == "reload":
                lead = (
                    f"The reload of tab {tab} started, but {name} opened; it waits for the answer."
                )
            elif action == "close":
                lead = f"Closing tab {tab} started, but {name} opened; the tab stays until then."
            else:
                lead = f"Focused tab {tab}; {name} opened."
            return dialog_result(call, tab, lead, stop.dialog)

    async def _tab_action(
        self, call: ToolCall, tab: int, action: str, before: dict[str, Any]
    ) -> ToolResult:
        ws = call.context.workspace_id
        observed: dict[str, Any] = {}
        blockers: list[dict[str, str]] = []
        if action == "close":
            done = await self._channel.request(
                call, "tab_control", {"tabId": tab, "action": "close"}, TAB_BOUND
            )
            # The extension's tab_removed event does the same; this makes it immediate.
            self._workspaces.tab_closed(tab)
            observed["tabClosed"] = True
            summary = f"Closed tab {tab}."
            url, title, serial = str(before.get("url", "")), str(before.get("title", "")), 0
        else:
            args: dict[str, Any] = {"tabId": tab, "action": action}
            bound = TAB_BOUND
            if action == "reload":
                args["timeoutMs"] = RELOAD_WAIT_MS
                bound = RELOAD_BOUND
            # A reload's rest is a wait for the page: a cancel ends it (the reload goes on).
            done = await self._channel.request(
                call, "tab_control", args, bound, wait_ends_on_cancel=action == "reload"
            )
            await call.effects.checkpoint()
            url, title = str(done.get("url", "")), str(done.get("title", ""))
            if action == "focus":
                observed["tabFocused"] = bool(done.get("active", True))
                summary = f"Focused tab {tab} (it is now the active tab of its window)."
            else:
                loaded = bool(done.get("loaded"))
                summary = f"Reloaded tab {tab}."
                if loaded:
                    observed["tabReloaded"] = True
                else:
                    # Asked, and no load came: a slow server, or a page whose own script holds
                    # the tab (then the old page is still the one shown). Not said as reloaded.
                    summary = (
                        f"Asked tab {tab} to reload; no new page finished loading within"
                        f" {RELOAD_WAIT_MS // 1000} s, so the tab may still show the page it had."
                    )
                    blockers.append(
                        {
                            "kind": "still_loading",
                            "summary": "No reloaded page finished loading within"
                            f" {RELOAD_WAIT_MS // 1000} s.",
                            "nextStep": "Call wait_for with state settled, then read the page;"
                            " if the tab stays stuck, close it and open a new one.",
                        }
                    )
            if before.get("url") and url and url != before.get("url"):
                observed["urlChanged"] = url
            serial = await self._render_serial(call, tab)
        closed = done.get("closedDialog")
        if isinstance(closed, dict):
            summary += f" The {closed.get('type', 'JavaScript')} dialog that was open is closed."
        receipt = {
            "targetAssurance": "none",
            "action": str(action),
            "observedAfter": observed,
            "blockers": blockers,
            "page": page_facts(tab, url, title, serial),
            "more": False,
        }
        return receipt_result(summary, receipt, ws)
