"""Starting and finding the background service for an instance."""

from __future__ import annotations

import signal
import subprocess
import time

import trio

from ..launch.spawn import ServiceLaunch, service_lock_holder, spawn_service
from ..transport.endpoints import Endpoints
from ..transport.handshake import open_bridge
from .wording import os_problem

START_TIMEOUT = 15.0
SERVICE_STOP_GRACE = 5.0
"""How long a service asked to stop (SIGTERM) gets before it is killed."""


async def stop_service(process: subprocess.Popen[bytes]) -> None:
    """Stop a service this command started: SIGTERM, then SIGKILL after a grace; shielded, so
    it runs to the end when the command is being cancelled or interrupted."""
    with trio.CancelScope(shield=True):
        for stop in (signal.SIGTERM, signal.SIGKILL):
            if process.poll() is not None:
                return
            process.send_signal(stop)
            with trio.move_on_after(SERVICE_STOP_GRACE):
                await _exited(process)


async def _exited(process: subprocess.Popen[bytes]) -> None:
    """Return once ``process`` has exited (a Popen has no awaitable wait: polled)."""
    while True:
        if process.poll() is not None:
            return
        await trio.sleep(0.02)


async def service_reachable(endpoints: Endpoints) -> bool:
    """True when the instance's service answers the bridge opening with a valid proof."""
    try:
        stream, _ = await open_bridge(endpoints, role="control")
    except Exception:
        return False
    await stream.aclose()
    return True


@trio.lowlevel.enable_ki_protection
async def ensure_service(endpoints: Endpoints, *extra: str) -> subprocess.Popen[bytes] | None:
    """Make sure a service runs; returns its process when this call started it (None when it
    was running already, or another start got there first).

    A start that stops at once fails at once with the service's own last words, unless another
    start won the race for the instance (it holds the lock): then that one is waited for.
    Ctrl-C is taken at a checkpoint here, never in the middle of starting the process (a
    service spawned but not yet in hand would be left running with no one to stop it).
    """
    if await service_reachable(endpoints):
        return None
    try:
        launch = spawn_service(endpoints, *extra)
    except OSError as exc:
        raise RuntimeError(f"could not start the service: {os_problem(exc)}") from None
    try:
        return await _wait_started(endpoints, launch)
    except BaseException:
        # Interrupted (Ctrl-C) or failed while waiting: a start that came to nothing must not
        # leave its service behind to serve no one until its idle timeout.
        await stop_service(launch.process)
        raise


async def _wait_started(
    endpoints: Endpoints, launch: ServiceLaunch
) -> subprocess.Popen[bytes] | None:
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
