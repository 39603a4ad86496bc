"""What the tools need from the rest of the service: the browser shore's requests and the
workspace registry's tab ownership, as protocols (tests give fakes of both)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol

import trio


class TabOwners(Protocol):
    """Whether a tab is still a workspace's (it may have closed, or left its group)."""

    def verify_tab(self, workspace: str | None, composite_tab_id: int) -> bool: ...


class TabOwnership(Protocol):
    """What the tab-listing tools ask of the workspace registry: the only tools that grow a
    workspace's tabs."""

    def owned_tabs(self, ws: Any) -> frozenset[int]: ...
    def adopt_tabs(self, ws: Any, ids: Iterable[int]) -> bool: ...
    def adopt_unclaimed(self, ws: Any, ids: Iterable[int]) -> list[int]: ...


class Workspaces(TabOwners, TabOwnership, Protocol):
    """Every workspace registry operation a tool uses."""

    def tab_closed(self, composite_tab_id: int) -> None: ...


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
