"""Workspaces: the service-minted handles that own tabs, and the rules for their lifetime."""

from .handle import WorkspaceId
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
    "WorkspaceId",
    "WorkspaceLimitReached",
    "WorkspaceLimits",
    "WorkspaceRegistry",
    "WorkspaceSummary",
    "compose_tab_id",
    "split_tab_id",
]
