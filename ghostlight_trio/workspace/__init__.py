"""Workspaces: the service-minted handles that own tabs, and the rules for their lifetime."""

from .registry import (
    UnknownWorkspace,
    WorkspaceLimitReached,
    WorkspaceLimits,
    WorkspaceRegistry,
    WorkspaceSummary,
)
from .tab_ids import compose_tab_id, split_tab_id

__all__ = [
    "UnknownWorkspace",
    "WorkspaceLimitReached",
    "WorkspaceLimits",
    "WorkspaceRegistry",
    "WorkspaceSummary",
    "compose_tab_id",
    "split_tab_id",
]
