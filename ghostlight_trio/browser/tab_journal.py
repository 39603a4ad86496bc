"""What happened to a workspace's tabs while a call ran: children its pages opened, tabs that
closed. Observation, not causation: a call's answer may name the tabs that opened from its tab
and the workspace's tabs that closed while it ran, so an agent learns of a popup at once
instead of at its next listing. Memory only, bounded, no URLs or titles."""

from __future__ import annotations

import itertools
from collections import deque
from typing import Any, Literal

import attrs

JOURNAL_LIMIT = 64
DELTA_LIMIT = 16
"""At most this many opened and closed tabs are named in one answer (``more`` says if there
were others)."""


@attrs.frozen
class TabTransition:
    serial: int
    workspace: Any
    kind: Literal["opened", "closed"]
    tab: int
    source: int | None = None
    """For an opened tab: the tab whose page opened it."""
    active: bool = False


@attrs.frozen
class TabDelta:
    opened: tuple[tuple[int, bool], ...]
    closed: tuple[int, ...]
    more: bool

    def structured(self) -> dict[str, Any]:
        """The ``tabDelta`` member of a result's structured content."""
        delta: dict[str, Any] = {
            "opened": [{"tabId": tab, "active": active} for tab, active in self.opened],
            "closed": list(self.closed),
            "more": self.more,
        }
        active = [tab for tab, is_active in self.opened if is_active]
        if active:
            delta["activeTabId"] = active[-1]
        return delta


class TabJournal:
    """The last transitions of every workspace's tabs, in order."""

    def __init__(self, limit: int = JOURNAL_LIMIT) -> None:
        self._entries: deque[TabTransition] = deque(maxlen=limit)
        self._serials = itertools.count(1)
        self._last = 0

    def cursor(self) -> int:
        """Where a call starts reading: transitions after it are the call's to report."""
        return self._last

    def opened(self, workspace: Any, tab: int, source: int, *, active: bool) -> None:
        self._add(TabTransition(next(self._serials), workspace, "opened", tab, source, active))

    def closed(self, workspace: Any, tab: int) -> None:
        self._add(TabTransition(next(self._serials), workspace, "closed", tab))

    def since(self, cursor: int, workspace: Any, source: int) -> TabDelta | None:
        """Tabs opened from ``source`` and tabs of ``workspace`` closed after ``cursor``; None
        when there were none."""
        opened: list[tuple[int, bool]] = []
        closed: list[int] = []
        for entry in self._entries:
            if entry.serial <= cursor or entry.workspace != workspace:
                continue
            if entry.kind == "opened" and entry.source == source:
                opened.append((entry.tab, entry.active))
            elif entry.kind == "closed":
                closed.append(entry.tab)
        if not opened and not closed:
            return None
        more = len(opened) > DELTA_LIMIT or len(closed) > DELTA_LIMIT
        return TabDelta(tuple(opened[:DELTA_LIMIT]), tuple(closed[:DELTA_LIMIT]), more)

    def _add(self, entry: TabTransition) -> None:
        self._entries.append(entry)
        self._last = entry.serial
