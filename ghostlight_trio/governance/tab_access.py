"""What governance asks of the browser about a call's tab: where it is, and to leave it.

The call's host is read from the live tab, never from arguments; a tab left on a page the call
may not see is moved to ``about:blank`` (parked), as one atomic effect of the call.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from ..browser.errors import BrowserFailure
from ..engine.call import CallState
from ..engine.contracts import Effects, WorkspaceId
from ..engine.resources import tab_id_argument
from .hosts import HostResolution, Indeterminate, resolve_url

log = logging.getLogger("ghostlight.governance")

TabProbe = Callable[[WorkspaceId, int], Awaitable[str]]
"""The live URL of a tab, read from the browser (never from arguments)."""
TabPark = Callable[[WorkspaceId, int], Awaitable[None]]
"""Move a tab to about:blank."""


class TabAccess:
    def __init__(self, probe: TabProbe | None, park: TabPark | None) -> None:
        self._probe = probe
        self._park = park

    async def read(self, call: CallState, tab: int | None) -> HostResolution:
        """Where ``tab`` is now, for ``call``; indeterminate when it cannot be read."""
        workspace = call.context.workspace_id
        if self._probe is None or workspace is None or tab is None:
            return Indeterminate("no live tab to read")
        try:
            url = await self._probe(workspace, tab)
        except BrowserFailure as failure:
            log.info("could not read the tab's URL: %s", failure)
            return Indeterminate("tab unreadable")
        return resolve_url(url)

    async def read_url(self, workspace: WorkspaceId, tab: int) -> str | None:
        """The tab's live URL; None when there is no browser or the tab cannot be read."""
        if self._probe is None:
            return None
        try:
            return await self._probe(workspace, tab)
        except BrowserFailure:
            return None

    async def park(self, call: CallState, effects: Effects) -> bool:
        """Move the call's tab to about:blank; False when that could not be done."""
        workspace = call.context.workspace_id
        tab = tab_id_argument(call.arguments)
        park = self._park
        if park is None or workspace is None or tab is None:
            return False

        async def to_blank() -> None:
            await park(workspace, tab)

        try:
            await effects.atomic(to_blank)
        except BrowserFailure as failure:
            log.warning("parking a denied landing failed: %s", failure)
            return False
        return True
