"""What the tools need from the rest of the service: the browser shore's requests and the
workspace registry's tab ownership, as protocols (tests give fakes of both)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol

import trio


class TabOwnership(Protocol):
    """The workspace registry operations these tools need."""

    def owned_tabs(self, ws: Any) -> frozenset[int]: ...
    def adopt_tabs(self, ws: Any, ids: Iterable[int]) -> bool: ...
    def adopt_unclaimed(self, ws: Any, ids: Iterable[int]) -> list[int]: ...


class BrowserRequests(Protocol):
    async def request(
        self,
        workspace_id: Any,
        op: str,
        args: dict[str, Any],
        *,
        timeout: float,  # noqa: ASYNC109 - the shore's own bound
        stop: trio.Event | None = None,
    ) -> dict[str, Any]: ...
