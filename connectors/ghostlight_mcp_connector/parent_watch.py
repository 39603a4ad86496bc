"""Notice when the MCP client that started this connector is gone without closing stdin.

Polls the parent pid: when it changes, the original parent has exited and the connector
shuts down cleanly (release the workspace, exit) instead of lingering as an orphan.
"""

from __future__ import annotations

import os

import trio

POLL_INTERVAL = 1.0


async def wait_for_parent_exit(*, interval: float = POLL_INTERVAL) -> None:
    original = os.getppid()
    while True:
        await trio.sleep(interval)
        if os.getppid() != original:
            return
