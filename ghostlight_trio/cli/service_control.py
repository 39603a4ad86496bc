"""``ghostlight service start|stop|restart``: the background service of an instance."""

from __future__ import annotations

import os
import signal
import sys
import time

import trio

from ..launch.spawn import service_lock_holder
from ..transport.endpoints import Endpoints
from .arguments import instance_flag
from .background import ensure_service, service_reachable
from .browser_left import stop_headless_left
from .control import query_status

STOP_TIMEOUT = 10.0


async def start(endpoints: Endpoints) -> int:
    if await service_reachable(endpoints):
        report = await query_status(endpoints)
        print(f"service already running (pid {report.pid}); log: {endpoints.log_file}")
        return 0
    try:
        # Kept warm: a service started by hand stays up until `service stop`; one that an MCP
        # client starts on demand exits after a quiet spell instead.
        process = await ensure_service(endpoints, "--keep-warm")
    except RuntimeError as exc:
        print(f"ghostlight: {exc}", file=sys.stderr)
        return 1
    if process is None:  # another start got there first
        pid = (await query_status(endpoints)).pid
        print(f"service already running (pid {pid}); log: {endpoints.log_file}")
        return 0
    print(
        f"service started (pid {process.pid}, instance {endpoints.instance}), kept warm until"
        f" `ghostlight service stop{instance_flag(endpoints)}`; log: {endpoints.log_file}"
    )
    return 0


async def stop(endpoints: Endpoints) -> int:
    pid = None
    if await service_reachable(endpoints):
        pid = (await query_status(endpoints)).pid
    else:
        pid = service_lock_holder(endpoints)
    if pid is None:
        print(f"service not running (instance {endpoints.instance})")
        await stop_headless_left(endpoints)
        return 0
    if pid <= 0:
        print(f"ghostlight: a service holds {endpoints.lock_file} but its pid is unknown", file=sys.stderr)
        return 1
    try:
        os.kill(pid, signal.SIGTERM)
        # A stopped (SIGSTOP) service acts on SIGTERM only once continued, as shells and
        # service managers know; one that runs takes no notice of SIGCONT.
        os.kill(pid, signal.SIGCONT)
    except ProcessLookupError:
        pass
    deadline = time.monotonic() + STOP_TIMEOUT
    while time.monotonic() < deadline:
        if service_lock_holder(endpoints) is None:
            print(f"service stopped (was pid {pid})")
            await stop_headless_left(endpoints)
            return 0
        await trio.sleep(0.05)
    print(
        f"ghostlight: service pid {pid} did not stop within {STOP_TIMEOUT:g} s (it may be"
        f" frozen); force it with `kill -KILL {pid}`; see {endpoints.log_file}",
        file=sys.stderr,
    )
    return 1


async def restart(endpoints: Endpoints) -> int:
    return await stop(endpoints) or await start(endpoints)
