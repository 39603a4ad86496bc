"""tools/list as both revisions serve it: a page of the projection held, or a wait for one.

The flow is common: the cursor is checked, a page is rendered from the held projection (once
per projection), and a request that comes while there is none waits for the fetch it starts.
Each revision supplies how a tool is rendered and what wraps a page (``finish``); when the
list changed, and whom to tell, stays with the revision.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import attrs

from ghostlight_trio.transport.bridge import CatalogChanged, CatalogProjection, CatalogRequest

from . import jsonrpc
from .actions import Action, Reply, WriteMessage
from .catalog_store import CatalogStore, Render
from .jsonrpc import JsonObject, Request, RequestId
from .link import Link
from .pagination import tools_page
from .replies import id_in_use, invalid_cursor, invalid_params, unavailable


@attrs.frozen
class ListWaiter:
    """One tools/list request, answered now or once the projection arrives."""

    request_id: RequestId
    cursor: str | None
    private: bool = False
    """The caller sent a restriction: what it may use depends on it, so never share the list."""
    restriction: JsonObject | None = None
    """That restriction (2026-07-28): the list is the part of the catalog it allows, fetched
    for this request alone."""


Finish = Callable[[ListWaiter, CatalogProjection, JsonObject], JsonObject]
"""A revision's page result from its ``tools`` (and ``nextCursor``) body."""


class ToolList:
    """The projection the service supplied and the tools/list requests that wait for it."""

    def __init__(
        self,
        link: Link,
        next_sequence: Callable[[], int],
        *,
        page_size: int,
        render: Render,
        finish: Finish,
    ) -> None:
        self.store: CatalogStore[ListWaiter] = CatalogStore()
        self._link = link
        self._next_sequence = next_sequence
        self._page_size = page_size
        self._render = render
        self._finish = finish
        self._restricted: dict[int, ListWaiter] = {}
        """Restricted lists on their way, by the sequence of their own catalog request."""

    @property
    def fetching(self) -> bool:
        """Whether a projection the service owes is on its way."""
        return self.store.fetching or bool(self._restricted)

    def request(
        self,
        request: Request,
        *,
        in_use: bool,
        private: bool = False,
        restriction: JsonObject | None = None,
    ) -> Reply:
        """Answer a tools/list whose id is ``in_use`` or not, from the projection held or
        once the one fetched now arrives; with a ``restriction``, from the projection fetched
        for it alone (never shared, never kept)."""
        cursor = (request.params or {}).get("cursor")
        if cursor is not None and not isinstance(cursor, str):
            return invalid_params(request.id, "Invalid params: cursor must be a string")
        if in_use:
            return id_in_use(request.id)
        waiter = ListWaiter(request.id, cursor, private or restriction is not None, restriction)
        if restriction is not None:
            sequence = self._next_sequence()
            self._restricted[sequence] = waiter
            self.store.owe(waiter)
            return Reply(self._link.send(CatalogRequest(sequence, restriction)), accepted=True)
        projection = self.store.projection
        if projection is not None:
            return Reply([self._page(waiter, projection)], accepted=True)
        self.store.park(waiter)
        return Reply(self.fetch(), accepted=True)

    def fetch(self) -> list[Action]:
        """Ask the service for the projection unless a request is already on its way."""
        return self.store.fetch(self._link, self._next_sequence)

    def arrived(self, message: CatalogProjection) -> tuple[list[Action], bool]:
        """The pages owed to those who waited for ``message``, and whether a refetch after a
        reconnect found a different tool set (nothing, for a projection not asked for)."""
        restricted = self._restricted.pop(message.sequence, None)
        if restricted is not None:
            if not self.store.settle(restricted.request_id):
                return [], False  # cancelled meanwhile: owed nothing
            return [self._page(restricted, message, kept=False)], False
        accepted = self.store.accept(message)
        if accepted is None:
            return [], False
        return [self._page(w, message) for w in accepted.waiters], accepted.announce

    def changed(self, message: CatalogChanged, *, refetch: bool) -> list[Action] | None:
        """The service's tool set changed: forget the projection held and fetch again if a
        fetch was under way (or ``refetch``). None when ``message`` is no news."""
        if not self.store.is_news(message):
            return None
        waiting = self.store.fetching
        self.store.invalidate()
        return self.fetch() if waiting or refetch else []

    def abandon(self, message: str) -> list[Action]:
        """The fetch cannot complete: each request still waiting gets "unavailable"."""
        waiters = self.store.abandon()
        restricted, self._restricted = list(self._restricted.values()), {}
        waiters += [w for w in restricted if self.store.settle(w.request_id)]
        return [unavailable(waiter.request_id, message) for waiter in waiters]

    def _page(
        self, waiter: ListWaiter, projection: CatalogProjection, *, kept: bool = True
    ) -> WriteMessage:
        """One page of ``projection``; rendered once per projection when it is the ``kept``
        one, else (a restricted list, made for one request) rendered for this page alone."""

        def render(start: int, stop: int) -> list[dict[str, Any]]:
            if kept:
                return self.store.rendered(start, stop, self._render)
            return [self._render(tool) for tool in projection.tools[start:stop]]

        body = tools_page(waiter.cursor, projection, self._page_size, render)
        if body is None:
            return invalid_cursor(waiter.request_id)
        return WriteMessage(
            jsonrpc.result(waiter.request_id, self._finish(waiter, projection, body))
        )
