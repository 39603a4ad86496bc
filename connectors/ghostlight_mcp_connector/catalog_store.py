"""The service-supplied tool projection, cached until the service says it changed.

Requests that need the projection while it is being fetched wait here as opaque waiters.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

import attrs

from ghostlight_trio.transport.bridge import CatalogChanged, CatalogProjection, CatalogRequest

from .actions import Action
from .link import Link

W = TypeVar("W")


@attrs.frozen
class Accepted(Generic[W]):
    waiters: list[W]
    announce: bool
    """True when a refetch after reconnect found a different tool set than before."""


class CatalogStore(Generic[W]):
    def __init__(self) -> None:
        self.projection: CatalogProjection | None = None
        self._fetching: int | None = None
        self._waiters: list[W] = []
        self._previous: CatalogProjection | None = None
        self._announce_if_changed = False

    @property
    def fetching(self) -> bool:
        return self._fetching is not None

    def fetch(self, link: Link, next_sequence: Callable[[], int]) -> list[Action]:
        """Ask the service for the projection unless a request is already on its way."""
        if self._fetching is not None:
            return []
        self._fetching = next_sequence()
        return link.send(CatalogRequest(sequence=self._fetching))

    def park(self, waiter: W) -> None:
        self._waiters.append(waiter)

    def is_news(self, message: CatalogChanged) -> bool:
        return self.projection is None or message.generation != self.projection.generation

    def invalidate(self, *, announce_if_changed: bool = False) -> None:
        if self.projection is not None:
            self._previous = self.projection
        self.projection = None
        self._fetching = None
        self._announce_if_changed = self._announce_if_changed or announce_if_changed

    def accept(self, message: CatalogProjection) -> Accepted[W] | None:
        if message.sequence != self._fetching:
            return None
        self._fetching = None
        self.projection = message
        changed = self._previous is not None and self._previous.tools != message.tools
        announce = self._announce_if_changed and changed
        self._announce_if_changed = False
        waiters, self._waiters = self._waiters, []
        return Accepted(waiters, announce)

    def abandon(self) -> list[W]:
        """The fetch cannot complete (connection failed or lost): hand back the waiters."""
        self._fetching = None
        waiters, self._waiters = self._waiters, []
        return waiters
