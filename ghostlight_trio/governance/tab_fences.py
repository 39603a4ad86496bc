"""Fencing a call's tab off the closed hosts before the call acts on it.

The tab's requests to the hosts the user closed (never-touch, enforced deny lists) are blocked
by the browser (``network_fence``), so script the page runs cannot reach them either. Sent once
per tab and policy; a tab the browser will not fence (no debugger session there) is logged and
fenced at its next call.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from ..browser.errors import BrowserFailure
from ..engine.call import CallState
from ..engine.contracts import WorkspaceId
from ..engine.resources import tab_id_argument
from .governor import Governor
from .network_fence import fenced_patterns

log = logging.getLogger("ghostlight.governance")

TabFence = Callable[[WorkspaceId, int, tuple[str, ...]], Awaitable[None]]
"""Have the browser block the tab's requests to URLs matching these patterns (none: unblock)."""
_FENCED_LIMIT = 4096


class TabFences:
    def __init__(self, governor: Governor, fence: TabFence | None) -> None:
        self._governor = governor
        self._fence = fence
        self._state: object = None
        self._patterns: tuple[str, ...] = ()
        self._fenced: dict[tuple[WorkspaceId, int], tuple[str, ...]] = {}
        """The patterns each tab was last fenced with (oldest first, bounded)."""

    async def fence(self, call: CallState) -> None:
        workspace = call.context.workspace_id
        tab = tab_id_argument(call.arguments) if "tabId" in call.arguments else None
        fence = self._fence
        if fence is None or workspace is None or tab is None:
            return
        state = self._governor.state
        if state is not self._state:
            self._state = state
            self._patterns = fenced_patterns(state.tiers, state.never_touch)
        patterns = self._patterns
        key = (workspace, tab)
        if self._fenced.get(key, ()) == patterns:
            return
        try:
            await fence(workspace, tab, patterns)
        except BrowserFailure as failure:
            log.warning("could not fence tab %s off the closed hosts: %s", tab, failure)
            return
        self._fenced.pop(key, None)
        self._fenced[key] = patterns
        while len(self._fenced) > _FENCED_LIMIT:
            del self._fenced[next(iter(self._fenced))]
