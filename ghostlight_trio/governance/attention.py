"""The attention circuit: repeated enforced denials pause one workspace until the user resumes.

It opens at 3 denials with the same signature (host, needs, category) within 60 s, or at 5
denials of any kind within 120 s. Only enforced denials count (never observe-mode ones, schema
errors or browser failures); a call naming a tab outside its workspace is one. Memory only;
there is no timed auto-resume.

A pause follows the client within its connection: a workspace minted on a connection that holds
a paused one starts paused (``carry``), so minting a fresh workspace is no way around it.

A workspace opened in place of one the service no longer knows (it restarted, and the client's
handle died with it) does not count its first few calls naming a tab outside it (``excuse``):
the agent's tab ids from before are void through no doing of its own, and trying them is no
probe of anyone's tabs. They are still denied, alike, and recorded.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Collection, Hashable

MATCHING_DENIAL_THRESHOLD = 3
MATCHING_DENIAL_WINDOW = 60.0
SESSION_DENIAL_THRESHOLD = 5
SESSION_DENIAL_WINDOW = 120.0
REPLACEMENT_GRACE = 8
"""Calls naming a tab outside the workspace that a replacement workspace does not count: one
for each tab an agent may have held, before it lists its tabs anew."""


class AttentionCircuits:
    """One circuit per workspace (keyed by the in-memory handle, never recorded)."""

    def __init__(self) -> None:
        self._history: dict[Hashable, deque[tuple[float, Hashable]]] = {}
        self._open: set[Hashable] = set()
        self._carried: dict[Hashable, Hashable] = {}
        """Open circuits carried over to a new workspace (not opened by its own denials), each
        with the workspace whose denials opened the pause: resuming that one resumes them."""
        self._excused: dict[Hashable, int] = {}
        """Replacement workspaces, each with how many more unowned-tab denials it is excused."""

    def is_open(self, workspace: Hashable | None) -> bool:
        return workspace is not None and workspace in self._open

    @property
    def open_count(self) -> int:
        return len(self._open)

    def record(self, workspace: Hashable | None, signature: Hashable, now: float) -> bool:
        """Count one enforced denial; True when this one opened the circuit."""
        if workspace is None or workspace in self._open:
            return False
        history = self._history.setdefault(workspace, deque())
        history.append((now, signature))
        while history and history[0][0] < now - SESSION_DENIAL_WINDOW:
            history.popleft()
        matching = sum(
            1 for at, seen in history if seen == signature and at >= now - MATCHING_DENIAL_WINDOW
        )
        if matching >= MATCHING_DENIAL_THRESHOLD or len(history) >= SESSION_DENIAL_THRESHOLD:
            self._open.add(workspace)
            history.clear()
            return True
        return False

    def carry(self, workspace: Hashable, kin: Collection[Hashable]) -> bool:
        """A new ``workspace`` for a client that holds ``kin``: open its circuit when one of
        theirs is open, as part of the same pause. True when it did."""
        origins = [self._carried.get(other, other) for other in kin if other in self._open]
        if workspace in self._open or not origins:
            return False
        self._open.add(workspace)
        self._carried[workspace] = origins[0]
        return True

    def excuse(self, workspace: Hashable, count: int = REPLACEMENT_GRACE) -> None:
        """``workspace`` replaces one the service no longer knows: its next ``count`` calls
        naming a tab outside it are not counted."""
        self._excused[workspace] = count

    def excused(self, workspace: Hashable | None) -> bool:
        """Whether this unowned-tab denial of ``workspace`` goes uncounted (using up one)."""
        left = self._excused.get(workspace, 0) if workspace is not None else 0
        if left <= 0:
            return False
        if left == 1:
            del self._excused[workspace]
        else:
            self._excused[workspace] = left - 1
        return True

    def was_carried(self, workspace: Hashable | None) -> bool:
        """True when this workspace's circuit is open only because it was carried over."""
        return workspace in self._carried

    def forget(self, workspace: Hashable) -> None:
        self._history.pop(workspace, None)
        self._excused.pop(workspace, None)
        self._open.discard(workspace)
        self._carried.pop(workspace, None)

    def paused(self) -> tuple[Hashable, ...]:
        """The workspaces whose circuit is open now."""
        return tuple(self._open)

    def resume_one(self, workspace: Hashable) -> int:
        """Close one workspace's circuit (the user resumed it), and the pauses carried over from
        it; how many closed (0 when it was not open)."""
        if workspace not in self._open:
            return 0
        carried = [other for other, origin in self._carried.items() if origin == workspace]
        for closed in (workspace, *carried):
            self.forget(closed)
        return 1 + len(carried)

    def resume_all(self) -> int:
        """Close every circuit (the user resumed); returns how many were open."""
        count = len(self._open)
        self._open.clear()
        self._carried.clear()
        self._history.clear()
        return count
