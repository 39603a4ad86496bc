"""``ghostlight browser list`` and ``ghostlight browser stop``: the managed browser that runs,
and a stop that leaves none of its processes (renderers, the native host, the pipe holder).

A headless browser has no window to close, so without these it could only be found with ``ps``
and stopped with ``kill``. Both find it through the profile lock (``browser.processes``), never
through a record of ours.
"""

from __future__ import annotations

import sys
from typing import Any

from ..browser import processes
from ..transport.endpoints import Endpoints
from . import instances, json_output
from .background import service_reachable
from .control import query_status


async def extension_connected(endpoints: Endpoints, browser: processes.RunningBrowser) -> bool | None:
    """Whether the browser's extension is connected to the instance's service: its native host
    runs and the service counts a browser. False while the service is down; None when the
    service does not answer."""
    if not browser.host_running or not await service_reachable(endpoints):
        return False
    try:
        report = await query_status(endpoints)
    except (OSError, RuntimeError, TimeoutError):
        return None
    return bool(report.browsers)


def describe(browser: processes.RunningBrowser, connected: bool | None = None) -> dict[str, Any]:
    return {
        "instance": browser.instance,
        "pid": browser.pid,
        "profile": str(browser.profile),
        "headless": browser.headless,
        "loaded": "devtools-pipe" if browser.holder is not None else "load-extension",
        "processes": len(browser.members),
        "extension_connected": connected,
    }


def _line(entry: dict[str, Any]) -> str:
    kind = "headless" if entry["headless"] else "windowed"
    connected = {True: "extension connected", False: "extension not connected",
                 None: "extension state unknown (the service does not answer)"}  # fmt: skip
    return (
        f"instance {entry['instance']}: browser pid {entry['pid']}, {kind},"
        f" {connected[entry['extension_connected']]}, {entry['processes']} processes,"
        f" profile {entry['profile']}"
    )


async def listing(endpoints: Endpoints, as_json: bool) -> int:
    browser = processes.find_running(endpoints)
    entries = []
    if browser is not None:
        entries.append(describe(browser, await extension_connected(endpoints, browser)))
    if as_json:
        json_output.emit({"instance": endpoints.instance, "browsers": entries})
        return 0
    for entry in entries:
        print(_line(entry))
    if not entries:
        print(f"no managed browser running (instance {endpoints.instance})")
    return 0


def _targets(endpoints: Endpoints, every: bool) -> list[Endpoints]:
    if not every:
        return [endpoints]
    return [Endpoints.for_instance(name) for name in instances.known()]


async def stop(endpoints: Endpoints, every: bool, as_json: bool) -> int:
    stopped, left = [], []
    for target in _targets(endpoints, every):
        browser = processes.find_running(target)
        if browser is None:
            continue
        remaining = await processes.stop(browser)
        stopped.append(describe(browser))
        left += [{"instance": target.instance, "pid": proc.pid} for proc in remaining]
    scope = "any instance" if every else f"instance {endpoints.instance}"
    problem = ""
    if left:
        pids = ", ".join(str(entry["pid"]) for entry in left)
        problem = f"processes of the managed browser still run after SIGKILL: pid {pids}"
    if as_json:
        body: dict[str, Any] = {"ok": not left, "stopped": stopped, "left": left}
        json_output.emit({**body, "error": problem} if problem else body)
    else:
        for entry in stopped:
            print(f"stopped the managed browser of instance {entry['instance']} (was pid {entry['pid']})")
        if not stopped:
            print(f"no managed browser running ({scope})")
        if problem:
            print(f"ghostlight: {problem}", file=sys.stderr)
    return 1 if left else 0
