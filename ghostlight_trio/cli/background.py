"""Starting and finding the background service for an instance."""

from __future__ import annotations

import subprocess
import time

import trio

from ..launch.spawn import service_lock_holder, spawn_service
from ..transport.endpoints import Endpoints
from ..transport.handshake import open_bridge
from .wording import os_problem

START_TIMEOUT = 15.0


async def service_reachable(endpoints: Endpoints) -> bool:
    """True when the instance's service answers the bridge opening with a valid proof."""
    try:
        stream, _ = await open_bridge(endpoints, role="control")
    except Exception:
        return False
    await stream.aclose()
    return True


async def ensure_service(endpoints: Endpoints, *extra: str) -> subprocess.Popen[bytes] | None:
    """Make sure a service runs; returns its process when this call started it (None when it
    was running already, or another start got there first).

    A start that stops at once fails at once with the service's own last words, unless another
    start won the race for the instance (it holds the lock): then that one is waited for.
    """
    if await service_reachable(endpoints):
        return None
    try:
        launch = spawn_service(endpoints, *extra)
    except OSError as exc:
        raise RuntimeError(f"could not start the service: {os_problem(exc)}") from None
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if await service_reachable(endpoints):
            # The service that answers is this start's only if it holds the instance lock.
            if service_lock_holder(endpoints) == launch.process.pid:
                return launch.process
            if launch.process.poll() is not None:
                return None  # another start's service answers; ours lost the race and stopped
            # Ours is still starting and stops once it finds the lock taken. Wait for that, or
            # it would take over untracked should the other service stop first.
        else:
            failure = launch.failure()
            if failure is not None:
                raise RuntimeError(failure)
        await trio.sleep(0.05)
    raise RuntimeError(f"the service did not come up within {START_TIMEOUT:.0f} s; see {endpoints.log_file}")
