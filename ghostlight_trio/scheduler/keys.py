"""Resource keys: what a call must hold exclusively before it may touch the browser.

Keys name browser resources, never callers: two workspaces addressing one tab share its queue.
``BrowserWide`` is the parent of every key in its slot and excludes all of them.
"""

from __future__ import annotations

import attrs

from ..workspace.tab_ids import compose_tab_id


@attrs.frozen
class TabSurface:
    """Page execution on one tab of one browser."""

    slot: int
    native_tab: int

    def describe(self) -> str:
        return f"tab {compose_tab_id(self.slot, self.native_tab)}"  # the id the agent knows it by


@attrs.frozen
class WorkspaceTopology:
    """Tab and group topology of one workspace (``slot`` None: not yet bound to a browser)."""

    slot: int | None
    workspace: str = attrs.field(repr=False)

    def describe(self) -> str:
        return "the workspace's tab list"


@attrs.frozen
class BrowserWide:
    """Browser- or window-wide mutations (``slot`` None: whichever browser, so all of them)."""

    slot: int | None

    def describe(self) -> str:
        return "the whole browser" if self.slot is None else f"browser {self.slot}"


@attrs.frozen
class ServiceLocal:
    """Work that never reaches a browser: it bypasses every queue."""

    def describe(self) -> str:
        return "the service"


SERVICE_LOCAL = ServiceLocal()

ResourceKey = TabSurface | WorkspaceTopology | BrowserWide | ServiceLocal


def conflicts(a: ResourceKey, b: ResourceKey) -> bool:
    """True when holders of ``a`` and ``b`` may not run at the same time."""
    if isinstance(a, ServiceLocal) or isinstance(b, ServiceLocal):
        return False
    if a == b:
        return True
    if isinstance(a, BrowserWide) or isinstance(b, BrowserWide):
        return a.slot is None or b.slot is None or a.slot == b.slot
    return False
