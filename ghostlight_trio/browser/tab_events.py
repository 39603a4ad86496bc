"""What a browser reports of its tabs on its own: one closed, one opened from another, one the
user moved out of its workspace's group. Each fact updates tab ownership, the tab journal and
the scheduler; nothing here sends anything.
"""

from __future__ import annotations

import logging
from typing import Any

import attrs

from ..scheduler import TabSurface
from ..workspace.tab_ids import compose_tab_id, is_native_tab_id
from .ports import SurfaceScheduler, WorkspaceDirectory
from .tab_groups import TabGroups
from .tab_journal import TabJournal

log = logging.getLogger("ghostlight.browser")


@attrs.frozen
class TabEvents:
    """Applies the tab frames of the browser in ``slot`` (native ids in, composite kept)."""

    _workspaces: WorkspaceDirectory
    _groups: TabGroups
    _journal: TabJournal
    _scheduler: SurfaceScheduler | None

    def on_frame(self, slot: int, frame: dict[str, Any]) -> None:
        """Apply a tab frame; any other frame is none of this."""
        kind = frame.get("type")
        if kind == "tab_removed":
            self.removed(slot, frame.get("tabId"))
        elif kind == "tab_created":
            self.created(slot, frame)
        elif kind == "tab_released":
            self.released(slot, frame.get("tabId"))

    def removed(self, slot: int, native: object) -> None:
        """A tab closed: it leaves its workspace and any quarantine on it is moot."""
        if not is_native_tab_id(native):
            return
        tab = compose_tab_id(slot, native)
        owner = self._workspaces.owner_of(tab)
        if owner is not None:
            self._journal.closed(owner, tab)
        self._workspaces.tab_closed(tab)
        if self._scheduler is not None:
            self._scheduler.surface_destroyed(TabSurface(slot, native))

    def created(self, slot: int, frame: dict[str, Any]) -> None:
        """A tab opened from another: it joins its opener's workspace."""
        child, opener = frame.get("tabId"), frame.get("openerTabId")
        if not (is_native_tab_id(child) and is_native_tab_id(opener)):
            return
        opener_id = compose_tab_id(slot, opener)
        # A copy: looking a workspace up may retire one that expired, which drops it from the
        # groups' memory (``workspace_ended``) while this loop runs.
        for workspace_id in self._groups.recently_sent():
            if opener_id in self._workspaces.owned_tabs(workspace_id):
                child_id = compose_tab_id(slot, child)
                if self._workspaces.adopt_tabs(workspace_id, [child_id]):
                    self._journal.opened(
                        workspace_id, child_id, opener_id, active=frame.get("active") is True
                    )
                return

    def released(self, slot: int, native: object) -> None:
        """The user moved a tab out of its workspace's group: it is nobody's any more."""
        if is_native_tab_id(native) and self._workspaces.tab_released(compose_tab_id(slot, native)):
            log.info("browser %d: the user moved a workspace's tab out of its group", slot)
