"""Idle shutdown: return once the service has been quiet for a whole window."""

from __future__ import annotations

from collections.abc import Callable

import trio


async def wait_until_idle(is_idle: Callable[[], bool], *, idle_timeout: float) -> None:
    """Return after ``is_idle()`` held at every poll for ``idle_timeout`` seconds in a row."""
    poll = max(0.01, min(1.0, idle_timeout / 10))
    quiet_since: float | None = None
    while True:
        now = trio.current_time()
        if not is_idle():
            quiet_since = None
        elif quiet_since is None:
            quiet_since = now
        elif now - quiet_since >= idle_timeout:
            return
        await trio.sleep(poll)
