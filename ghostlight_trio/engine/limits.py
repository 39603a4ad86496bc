"""The engine's time and size bounds, in one place."""

from __future__ import annotations

import attrs


@attrs.frozen
class EngineLimits:
    reply_deadline: float = 60.0
    """The caller gets exactly one terminal answer by then."""
    settlement_deadline: float = 180.0
    """The call's own task settles (lease, audit, workspace pin) within this, counted from start."""
    max_active_per_stream: int = 256
    max_held_workspaces_per_stream: int = 16
    """Workspaces a stream keeps alive by using them (its most recently used ones); an older one
    starts its idle grace, as when the stream goes."""


DEFAULT_LIMITS = EngineLimits()
