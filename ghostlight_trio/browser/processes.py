"""A running managed browser as processes: found through its profile lock, stopped whole.

``browser list``, ``browser stop`` and ``service stop`` use it. The browser is found by the
lock Chromium keeps on the instance's profile (``managed.profile_in_use``), so no record of
ours can go stale. Stopping takes every process of it: its process group (which it leads, or
which its ``pipe_holder`` leads), and whatever it started outside that group (the native host),
each recognised by its start time so that a pid the kernel gave to another process since is
never signalled.
"""

from __future__ import annotations

import contextlib
import os
import signal
from pathlib import Path

import attrs
import trio

from ..transport.endpoints import Endpoints
from .managed import profile_dir, profile_in_use

HOLDER_MODULE = "ghostlight_trio.browser.pipe_holder"
HOST_NAMES = ("ghostlight_browser_connector", "ghostlight-browser-connector")
STOP_GRACE = 5.0
KILL_WAIT = 5.0


@attrs.frozen
class Proc:
    """One process as /proc shows it; ``started`` (clock ticks after boot) tells it apart from
    a later process given the same pid."""

    pid: int
    parent: int
    group: int
    started: int
    command: tuple[str, ...]


def read_proc(pid: int) -> Proc | None:
    """The live process ``pid`` (None when gone or a zombie)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return None
    fields = stat[stat.rindex(")") + 2 :].split()  # after the name, which may hold spaces
    if fields[0] in ("Z", "X"):
        return None
    command = tuple(part.decode(errors="replace") for part in raw.split(b"\0") if part)
    return Proc(pid, int(fields[1]), int(fields[2]), int(fields[19]), command)


def all_procs() -> list[Proc]:
    """Every live process this user can read."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (proc := read_proc(int(entry.name))) is not None:
            found.append(proc)
    return found


def descendants(root: int, procs: list[Proc]) -> list[Proc]:
    """The processes below ``root`` in the parent tree."""
    children: dict[int, list[Proc]] = {}
    for proc in procs:
        children.setdefault(proc.parent, []).append(proc)
    found, todo = [], [root]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child.pid)
    return found


def is_host(proc: Proc) -> bool:
    return any(name in part for part in proc.command for name in HOST_NAMES)


@attrs.frozen
class RunningBrowser:
    """An instance's managed browser while it runs, with every process that is part of it."""

    instance: str
    process: Proc
    profile: Path
    headless: bool
    holder: Proc | None
    """The ``pipe_holder`` leading its group, when the extension came over the DevTools pipe."""
    members: tuple[Proc, ...]
    """The browser, its holder, its process group and its descendants (the native host)."""

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def host_running(self) -> bool:
        return any(is_host(proc) for proc in self.members)


def find_running(endpoints: Endpoints) -> RunningBrowser | None:
    """The instance's managed browser, or None when none runs."""
    profile = profile_dir(endpoints)
    pid = profile_in_use(profile)
    browser = read_proc(pid) if pid is not None else None
    if browser is None:
        return None
    procs = all_procs()
    leader = read_proc(browser.group)
    holder = leader if leader is not None and HOLDER_MODULE in leader.command else None
    members = [browser, *([holder] if holder is not None else [])]
    if holder is not None or browser.group == browser.pid:  # a process group of its own
        members += [proc for proc in procs if proc.group == browser.group]
    members += descendants(browser.pid, procs)
    headless = any(arg == "--headless" or arg.startswith("--headless=") for arg in browser.command)
    return RunningBrowser(
        endpoints.instance, browser, profile, headless, holder, tuple(dict.fromkeys(members))
    )


def _alive(proc: Proc) -> bool:
    now = read_proc(proc.pid)
    return now is not None and now.started == proc.started


def _signal(procs: list[Proc], sig: signal.Signals) -> None:
    for proc in procs:
        if _alive(proc):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(proc.pid, sig)


async def _wait_gone(procs: list[Proc], within: float) -> list[Proc]:
    """Those of ``procs`` still running after ``within`` (polled: none is our child)."""
    with trio.move_on_after(within):
        while True:
            left = [proc for proc in procs if _alive(proc)]
            if not left:
                return left
            await trio.sleep(0.05)
    return [proc for proc in procs if _alive(proc)]


async def stop(browser: RunningBrowser, *, grace: float = STOP_GRACE) -> list[Proc]:
    """Stop every process of ``browser``: SIGTERM to the leader (the holder passes it on), a
    SIGKILL to all of them after ``grace``. The processes still running after that (none but
    one another user owns, or a hung kernel) are returned."""
    members = list(browser.members)
    leader = browser.holder or browser.process
    with trio.CancelScope(shield=True):
        _signal([leader], signal.SIGTERM)
        await _wait_gone([leader], grace)
        _signal(members, signal.SIGKILL)
        left = await _wait_gone(members, KILL_WAIT)
    return left
