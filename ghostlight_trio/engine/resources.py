"""Which scheduler key a call must hold, from its catalog scheduling class and arguments."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ..catalog.registry import PRESENTATION_CLASS, SERVICE_LOCAL_CLASS, ToolSpec
from ..scheduler import (
    SERVICE_LOCAL,
    BrowserWide,
    ResourceKey,
    TabSurface,
    WorkspaceTopology,
)
from ..workspace import split_tab_id
from .contracts import WorkspaceId

ResourceResolver = Callable[
    [ToolSpec, Mapping[str, Any], "WorkspaceId | None"], "ResourceKey | None"
]
"""Returns the key to lease for the whole call, or None when the handler leases per step."""

BYPASS_CLASSES = frozenset({SERVICE_LOCAL_CLASS, PRESENTATION_CLASS})
SURFACE_ENDING = frozenset({("tab_control", "close")})
"""(tool, action) pairs that destroy their tab. They may run on a quarantined tab: the tab's
end is itself the proof that lifts its quarantine, and the agent's way out of it."""
HELD_STATE_ACTIONS = frozenset(
    {("gif_creator", "stop_recording"), ("gif_creator", "status"), ("gif_creator", "clear")}
)
"""(tool, action) pairs that act only on what the service holds for the tab (its recording),
never on the tab itself. With an export that returns the GIF to the caller, they still work
once the tab has left the workspace (closed, or moved out of its group): the recording is the
workspace's, whatever became of the tab."""


def resource_for(
    spec: ToolSpec, arguments: Mapping[str, Any], workspace: WorkspaceId | None
) -> ResourceKey | None:
    """The default mapping. A call without a concrete tab waits in its workspace's topology lane;
    the browser layer binds a tab there."""
    klass = spec.scheduling_class
    if klass in BYPASS_CLASSES:
        return SERVICE_LOCAL
    if klass == "composition":
        return None
    tab = tab_id_argument(arguments)
    slot_and_tab = split_tab_id(tab) if tab is not None and tab >= 0 else None
    if klass == "browser_wide":
        return BrowserWide(slot_and_tab[0] if slot_and_tab else None)
    if klass in ("tab_surface", "retained_surface") and slot_and_tab is not None:
        return TabSurface(*slot_and_tab)
    if workspace is None:
        return SERVICE_LOCAL
    return WorkspaceTopology(slot_and_tab[0] if slot_and_tab else None, workspace)


def tab_id_argument(arguments: Mapping[str, Any]) -> int | None:
    """The ``tabId`` argument as an integer id (JSON numbers may arrive as whole floats)."""
    value = arguments.get("tabId")
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, float):
        return int(value) if value.is_integer() else None
    return value


def acts_on_held_state(spec: ToolSpec, arguments: Mapping[str, Any]) -> bool:
    """True for a call that needs nothing of its tab but what the service holds for it (see
    ``HELD_STATE_ACTIONS``); an export to the caller (``download``) counts, one into the page
    (``ref``, ``coordinate``) does not."""
    action = arguments.get(spec.action_key) if spec.action_key else None
    if (spec.name, action) in HELD_STATE_ACTIONS:
        return True
    return (
        spec.name == "gif_creator"
        and action == "export"
        and arguments.get("download") is True
        and arguments.get("ref") is None
        and arguments.get("coordinate") is None
    )


def ends_surface(spec: ToolSpec, arguments: Mapping[str, Any]) -> bool:
    """True for a call that closes the tab it names (see ``SURFACE_ENDING``)."""
    action = arguments.get(spec.action_key) if spec.action_key else None
    return (spec.name, action) in SURFACE_ENDING
