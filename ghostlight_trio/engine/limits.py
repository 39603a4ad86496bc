"""The engine's time and size bounds, in one place."""

from __future__ import annotations

import attrs


@attrs.frozen
class EngineLimits:
    """Per call, a deadline for its answer and one for settling; per stream, how much it holds."""

    reply_deadline: float = 60.0
    """The caller gets exactly one terminal answer by then."""
    settlement_deadline: float = 180.0
    """The call's own task settles (lease, audit, workspace pin) within this, counted from start."""
    max_active_per_stream: int = 256
    """Calls one stream may have unsettled at once; one more is refused as busy, unstarted."""
    max_workspaces_per_stream: int = 8
    """A stream's share of the service's workspaces: those it opened, minted or used that are
    still live (kept alive by it, or in their idle grace). One more first ends the stream's own
    least recently used workspace with no call in flight, never another stream's; when each
    has a call in flight, the one more is refused as busy. Times the service's connection bound
    (``StreamLimits.max_streams``) it is at most its workspace bound, so connections can never
    hold every workspace between them."""
    max_held_workspaces_per_stream: int = 8
    """Of those, the most recently used ones the stream keeps alive by using them; an older one
    starts its idle grace, as when the stream goes."""


DEFAULT_LIMITS = EngineLimits()
