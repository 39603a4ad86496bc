"""The service-supplied tool projection, cached until the service says it changed.

Requests that need the projection while it is being fetched wait here, keyed by their JSON-RPC
id; one the client cancelled meanwhile is withdrawn, and stays unanswered.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, Protocol, TypeVar

import attrs

from ghostlight_trio.transport.bridge import (
    CatalogChanged,
    CatalogProjection,
    CatalogRequest,
    ToolDescriptor,
)

from .actions import Action
from .jsonrpc import RequestId
from .link import Link


class _Waiter(Protocol):
    @property
    def request_id(self) -> RequestId: ...


W = TypeVar("W", bound=_Waiter)
Render = Callable[[ToolDescriptor], dict[str, Any]]


@attrs.frozen
class Accepted(Generic[W]):
    waiters: list[W]
    """Those still owed an answer, in the order they arrived."""
    announce: bool
    """True when a refetch after reconnect found a different tool set than before."""


class CatalogStore(Generic[W]):
    def __init__(self) -> None:
        self.projection: CatalogProjection | None = None
        self._fetching: int | None = None
        self._waiters: list[W] = []
        self._owed: dict[RequestId, W] = {}
        self._previous: CatalogProjection | None = None
        self._announce_if_changed = False
        self._pages: dict[tuple[int, int, Render], list[dict[str, Any]]] = {}

    @property
    def fetching(self) -> bool:
        return self._fetching is not None

    def fetch(self, link: Link, next_sequence: Callable[[], int]) -> list[Action]:
        """Ask the service for the projection unless a request is already on its way."""
        if self._fetching is not None:
            return []
        self._fetching = next_sequence()
        return link.send(CatalogRequest(sequence=self._fetching))

    def owed(self) -> int:
        """How many parked requests still owe the client an answer."""
        return len(self._owed)

    def park(self, waiter: W) -> None:
        self._waiters.append(waiter)
        self._owed[waiter.request_id] = waiter

    def owe(self, waiter: W) -> None:
        """Count a request answered from a projection of its own (not parked for this one)."""
        self._owed[waiter.request_id] = waiter

    def settle(self, request_id: RequestId) -> bool:
        """Whether the client is still owed that answer (now no longer)."""
        return self._owed.pop(request_id, None) is not None

    def is_waiting(self, request_id: RequestId) -> bool:
        return request_id in self._owed

    def withdraw(self, request_id: RequestId) -> None:
        """The client cancelled: no answer is owed any more."""
        self._owed.pop(request_id, None)

    def is_news(self, message: CatalogChanged) -> bool:
        return self.projection is None or message.generation != self.projection.generation

    def invalidate(self, *, announce_if_changed: bool = False) -> None:
        if self.projection is not None:
            self._previous = self.projection
        self.projection = None
        self._pages.clear()
        self._fetching = None
        self._announce_if_changed = self._announce_if_changed or announce_if_changed

    def accept(self, message: CatalogProjection) -> Accepted[W] | None:
        if message.sequence != self._fetching:
            return None
        self._fetching = None
        self.projection = message
        self._pages.clear()
        changed = self._previous is not None and self._previous.tools != message.tools
        announce = self._announce_if_changed and changed
        self._announce_if_changed = False
        return Accepted(self._take_waiters(), announce)

    def rendered(self, start: int, stop: int, render: Render) -> list[dict[str, Any]]:
        """The projection's tools ``start:stop`` rendered, made once per projection: a client
        listing again gets the same objects (only read once made) instead of fresh deep copies
        of every schema, which cost most of a tools/list."""
        assert self.projection is not None, "rendered only while a projection is held"
        key = (start, stop, render)
        page = self._pages.get(key)
        if page is None:
            page = self._pages[key] = [render(t) for t in self.projection.tools[start:stop]]
        return page

    def abandon(self) -> list[W]:
        """The fetch cannot complete (connection failed or lost): hand back the waiters."""
        self._fetching = None
        return self._take_waiters()

    def _take_waiters(self) -> list[W]:
        """The parked waiters still owed an answer; each is handed back at most once."""
        waiters, self._waiters = self._waiters, []
        return [w for w in waiters if self._owed.pop(w.request_id, None) is not None]
