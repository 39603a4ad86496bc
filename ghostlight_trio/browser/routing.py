"""Which browser a request goes to, waiting a bounded time for one to attach.

A request naming a tab goes to the browser whose slot the tab id carries; one without goes to
a browser holding one of its workspace's tabs, else to the most recently focused browser.
"""

from __future__ import annotations

from typing import Any

import attrs
import trio

from ..transport.endpoints import DEFAULT_INSTANCE
from ..workspace.tab_ids import slot_of
from .connection import BrowserConnection
from .errors import BrowserUnavailable
from .ports import WorkspaceDirectory
from .slots import SlotTable

FIRST_CALL_WAIT = 5.0
"""How long a call waits for a browser to attach before reporting it unavailable."""
UNAVAILABLE = (
    "No browser is connected to Ghostlight ({waited})."
    " Start one with `ghostlight browser launch{instance}`, or load the Ghostlight extension in"
    " Chromium and check that its native host is installed"
)


@attrs.define
class Router:
    """Picks the link for each request from the slot table and the workspace's tabs."""

    _slots: SlotTable
    _workspaces: WorkspaceDirectory
    _instance: str
    """The service instance, for the command a message about no browser suggests."""
    _first_call_wait: float = FIRST_CALL_WAIT
    _none_since: float | None = attrs.field(default=None, init=False)
    """When the last full wait for a browser began that ended with none attached (None
    once one attaches): for one wait's length after it, calls queued behind it fail at
    once instead of each waiting in turn."""
    last_wire_refusal: str = attrs.field(default="", init=False)
    """Why the latest extension of another wire major was refused (diagnostics)."""

    def browser_attached(self) -> None:
        self._none_since = None

    async def connection_for(
        self, workspace_id: Any, args: dict[str, Any], slot: int | None
    ) -> BrowserConnection:
        """The link to send on; raises ``BrowserUnavailable`` when none attaches in time."""
        if slot is None and isinstance(args.get("tabId"), int):
            slot = slot_of(args["tabId"])
        connection = self._pick(workspace_id, slot)
        if connection is not None:
            return connection
        now, wait = trio.current_time(), self._first_call_wait
        since = self._none_since
        if since is not None and now - since < 2 * wait:
            waited = f"none has attached for {now - since:.1f}s"
        else:
            with trio.move_on_after(wait):
                while True:
                    connection = self._pick(workspace_id, slot)
                    if connection is not None:
                        return connection
                    await self._slots.changed()
            self._none_since = now
            waited = f"waited {trio.current_time() - now:.1f}s for the extension"
        raise BrowserUnavailable(self._unavailable(slot, waited))

    def _unavailable(self, slot: int | None, waited: str) -> str:
        if slot is not None and self._slots.known(slot):
            return (
                f"The browser holding this tab (browser {slot}) is not connected"
                f" ({waited}). Reopen it or reload the Ghostlight extension"
            )
        instance = self._instance
        message = UNAVAILABLE.format(
            waited=waited, instance="" if instance == DEFAULT_INSTANCE else f" --instance {instance}"
        )
        if self.last_wire_refusal:
            message += f". An extension was refused: {self.last_wire_refusal}"
        return message

    def _pick(self, workspace_id: Any, slot: int | None) -> BrowserConnection | None:
        if slot is not None and slot > 0:
            return self._slots.live(slot)
        if workspace_id is not None:
            try:
                owned = self._workspaces.owned_tabs(workspace_id)
            except Exception:
                owned = frozenset()
            for owned_slot in sorted({slot_of(tab) for tab in owned}):
                connection = self._slots.live(owned_slot)
                if connection is not None:
                    return connection
        return next(self._slots.by_focus(), None)
