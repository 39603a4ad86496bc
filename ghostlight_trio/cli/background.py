"""Starting and finding the background service for an instance."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import trio

from ..transport.endpoints import Endpoints
from ..transport.handshake import open_bridge

START_TIMEOUT = 15.0


def service_command(endpoints: Endpoints, *extra: str) -> list[str]:
    return [sys.executable, "-m", "ghostlight_trio", "service", "--instance", endpoints.instance, *extra]


def spawn_service(endpoints: Endpoints, *extra: str) -> subprocess.Popen[bytes]:
    """Start the service detached from this terminal, logging to the instance log."""
    endpoints.ensure_private_dirs()
    log = open(endpoints.log_file, "ab")  # noqa: SIM115 - handed to the child
    try:
        return subprocess.Popen(
            service_command(endpoints, *extra),
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            start_new_session=True,
            env={**os.environ, "GHOSTLIGHT_INSTANCE": endpoints.instance},
        )
    finally:
        log.close()


async def service_reachable(endpoints: Endpoints) -> bool:
    """True when the instance's service answers the bridge opening with a valid proof."""
    try:
        stream, _ = await open_bridge(endpoints, role="control")
    except Exception:
        return False
    await stream.aclose()
    return True


async def ensure_service(endpoints: Endpoints, *extra: str) -> subprocess.Popen[bytes] | None:
    """Make sure a service runs; returns the process when this call started it."""
    if await service_reachable(endpoints):
        return None
    process = spawn_service(endpoints, *extra)
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(
                f"the service exited with status {process.returncode}; see {endpoints.log_file}"
            )
        if await service_reachable(endpoints):
            return process
        await trio.sleep(0.05)
    raise RuntimeError(f"the service did not come up within {START_TIMEOUT:.0f} s; see {endpoints.log_file}")
