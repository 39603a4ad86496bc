"""The workspace handle's type, shared by the registry that mints it and the calls that carry it."""

from __future__ import annotations

from typing import NewType

WorkspaceId = NewType("WorkspaceId", str)
"""Opaque, unguessable workspace handle minted by the service; never logged raw."""
