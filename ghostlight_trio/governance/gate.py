"""The governance gate the engine runs every call through (``engine.gate.CallGate``).

Order for one call: the switches (hold, kill switch, a paused workspace) before it can queue
and again once leased (``switchboard``); then, with the lease held, the decision at the call's
host (``decision``); the tab is fenced off the closed hosts (``tab_fences``); after the call,
the checks on where its tab ended up and what its answer shows (``landing``); while it runs,
what it may reach besides its page (``reach``). The gate itself only routes the engine's calls.
"""

from __future__ import annotations

from collections.abc import Callable, Collection

import trio

from ..catalog.registry import SERVICE_LOCAL_CLASS
from ..engine.call import CallState
from ..engine.contracts import Effects, ToolResult, WorkspaceId
from ..engine.gate import GateStop
from .decision import Authorizer, GateParts, HeldPages
from .governor import Governor
from .landing import LandingChecks
from .reach import Reach
from .switchboard import Switchboard
from .tab_access import TabAccess, TabPark, TabProbe
from .tab_fences import TabFence, TabFences
from .urls import normalize_url


class GovernanceGate:
    def __init__(
        self,
        governor: Governor,
        *,
        probe: TabProbe | None = None,
        park: TabPark | None = None,
        fence: TabFence | None = None,
        held_pages: HeldPages | None = None,
        clock: Callable[[], float] = trio.current_time,
    ) -> None:
        self._switchboard = Switchboard(governor, clock)
        self._tabs = TabAccess(probe, park)
        parts = GateParts(governor, self._switchboard, self._tabs)
        self._fences = TabFences(governor, fence)
        self._decision = Authorizer(parts, normalize_url, held_pages)
        self._landing = LandingChecks(parts, self._decision)
        self._reach = Reach(parts, self._decision)

    def begin(self, call: CallState) -> GateStop | None:
        return self._switchboard.begin(call)

    def minted(
        self, workspace: WorkspaceId, kin: Collection[WorkspaceId], *, replacing: bool = False
    ) -> None:
        self._switchboard.minted(workspace, kin, replacing=replacing)

    def end(self, call: CallState) -> None:
        self._switchboard.end(call)
        self._decision.forget(call)

    def stopped(self, call: CallState) -> GateStop | None:
        return self._switchboard.stopped(call)

    async def authorize(self, call: CallState) -> GateStop | None:
        stop = await self._decision.authorize(call)
        # Not for a tab that left (never reached again) nor a call that runs in the service only.
        if stop is None and not call.tab_left and call.spec.scheduling_class != SERVICE_LOCAL_CLASS:
            await self._fences.fence(call)
        return stop

    async def after(self, call: CallState, effects: Effects, result: ToolResult) -> ToolResult:
        return await self._landing.after(call, effects, result)

    def denied_at(self, call: CallState, url: str) -> str | None:
        return self._reach.denied_at(call, url)

    def closed_at(self, call: CallState, url: str) -> str | None:
        return self._reach.closed_at(call, url)

    async def may_see(self, workspace: WorkspaceId | None, tab: int) -> bool:
        return await self._reach.may_see(workspace, tab)

    def unowned_tab(self, call: CallState) -> None:
        self._switchboard.unowned_tab(call)
