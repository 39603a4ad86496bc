"""The managed browser yields the CPU to everything else on the machine.

A busy headless Chromium can keep every core busy. While the machine is contended, the service,
the connectors (and the kill switch and status that go through them) and the user's own programs
should run first and the browser take what they leave; an idle machine loses nothing.

Linux weighs runnable processes at two levels, so the browser, started in a session and process
group of its own, is lowered at both:

* between groups. Where the kernel schedules each session as one group (an autogroup), the
  browser's own group gets a background nice value: the whole browser then weighs like one
  background process, however many processes it runs. A process's own nice would not do that,
  since it only orders processes within their group;
* within a group. Where autogroups do not apply (switched off, or a cgroup with CPU control, as
  recent systemd versions give user sessions), the browser shares its group with the service
  and the user's programs, and only a process's own nice counts. The browser's process group
  gets the background value, which the processes it starts inherit.

Only the browser is ever lowered, never the caller, and nothing is ever raised. A browser run
as root sets its own threads' nice values afterwards (lower than the background value, which
root may do), so there only the first level holds.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

log = logging.getLogger("ghostlight.browser")

BACKGROUND_NICE = 10
"""The background nice value given to the browser's scheduling group and to its processes."""


def run_in_background(pid: int) -> bool:
    """Give the browser led by ``pid`` background priority. True when any of it took effect.

    ``pid`` must lead a session of its own: a process in the caller's session (or the caller
    itself) is left alone, since lowering its group would lower the caller. Best effort."""
    try:
        if not (os.getsid(pid) == pid != os.getsid(0)):
            log.debug("browser %d shares this process's session; left as it is", pid)
            return False
    except OSError as exc:  # already gone
        log.debug("browser %d keeps its scheduling priority: %s", pid, exc)
        return False
    grouped = _lower_autogroup(pid)
    niced = _lower_process_group(pid)
    return grouped or niced


def autogroup(pid: int | str) -> tuple[str, int] | None:
    """(``/autogroup-N``, nice) of a process's autogroup, from ``/proc/PID/autogroup``. None where
    it has none: no such file (no autogroups, or the process is gone), an empty one (the
    kernel's default group, for a process that never started a session of its own, as under
    some service managers) or a line not understood."""
    try:
        line = Path(f"/proc/{pid}/autogroup").read_text()
    except FileNotFoundError:
        return None
    match line.split():
        case [name, "nice", nice] if nice.lstrip("-").isdigit():
            return name, int(nice)
        case _:
            return None


def _lower_autogroup(pid: int) -> bool:
    try:
        theirs, ours = autogroup(pid), autogroup("self")
        if theirs is None or (ours is not None and theirs[0] == ours[0]):
            return False
        Path(f"/proc/{pid}/autogroup").write_text(f"{BACKGROUND_NICE}\n")
    except OSError as exc:  # not ours to change, or the process is gone
        log.debug("browser %d keeps its autogroup weight: %s", pid, exc)
        return False
    return True


def _lower_process_group(pid: int) -> bool:
    """The browser's process group (led by ``pid``) to the background nice value, unless its
    highest-priority member is already there or below."""
    try:
        if os.getpriority(os.PRIO_PGRP, pid) >= BACKGROUND_NICE:
            return False
        os.setpriority(os.PRIO_PGRP, pid, BACKGROUND_NICE)
    except OSError as exc:
        log.debug("browser %d keeps its processes' nice values: %s", pid, exc)
        return False
    return True
