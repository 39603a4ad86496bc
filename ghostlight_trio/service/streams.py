"""The admitted streams that are alive right now: counted for idle shutdown and status, told
of catalog changes, and bounded so no few clients can take every connection."""

from __future__ import annotations

import attrs

from ..transport.bridge import Message
from ..transport.framing import FrameBudget
from .outbox import Outbox


@attrs.frozen
class StreamLimits:
    """How many bridge connections the service serves at once."""

    max_streams: int = 32
    """Admitted connections of every role. With each connection's share of workspaces
    (``EngineLimits.max_workspaces_per_stream``) it sizes the service's workspace bound, so the
    connections admitted can never hold every workspace between them."""
    max_edge_streams: int = 28
    """Of those, MCP clients' connections; the rest stay free for the user's own ``ghostlight``
    commands (status, hold, panic), which many agents at once must not lock out."""
    max_opening: int = 16
    """Connections still in their opening (at most 5 s each); one more is closed unread."""


class LiveStreams:
    def __init__(
        self, limits: StreamLimits = StreamLimits(), *, frame_budget: FrameBudget | None = None
    ) -> None:
        self.limits = limits
        self.frame_budget = frame_budget or FrameBudget()
        """Bytes the unfinished frames of all connections (admitted or opening) hold, bounded
        together."""
        self._roles: dict[Outbox, str] = {}
        self._reserved: dict[str, int] = {}
        """Places given to clients that passed admission and are finishing their opening."""
        self.opening = 0
        """Connections in their opening handshake now."""

    def reserve(self, role: str) -> str | None:
        """Take a place for a client of ``role`` about to be admitted: None when there is one
        (``add`` then fills it, ``unreserve`` gives it back), else why not, in words for its
        user."""
        limits = self.limits
        streams = len(self._roles) + sum(self._reserved.values())
        edges = self.count("edge") + self._reserved.get("edge", 0)
        if role == "edge" and edges >= limits.max_edge_streams:
            return (
                f"the Ghostlight service already serves {edges} MCP client connections, its"
                " limit; close agent sessions you no longer use (each MCP client holds one"
                " connection), then retry"
            )
        if streams >= limits.max_streams:
            return (
                f"the Ghostlight service already serves {streams} connections, its limit;"
                " close agent sessions you no longer use, then retry"
            )
        self._reserved[role] = self._reserved.get(role, 0) + 1
        return None

    def unreserve(self, role: str) -> None:
        left = self._reserved.get(role, 0) - 1
        if left > 0:
            self._reserved[role] = left
        else:
            self._reserved.pop(role, None)

    def add(self, outbox: Outbox, role: str, *, reserved: bool = False) -> None:
        """Count an admitted stream; ``reserved``: in the place ``reserve`` took for it."""
        if reserved:
            self.unreserve(role)
        self._roles[outbox] = role

    def discard(self, outbox: Outbox) -> None:
        self._roles.pop(outbox, None)

    def __len__(self) -> int:
        return len(self._roles)

    def role_of(self, outbox: Outbox) -> str | None:
        return self._roles.get(outbox)

    def count(self, role: str) -> int:
        return sum(1 for held in self._roles.values() if held == role)

    def broadcast(self, message: Message) -> None:
        for outbox in list(self._roles):
            outbox.post(message)
