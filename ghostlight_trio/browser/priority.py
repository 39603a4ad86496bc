"""The managed browser yields the CPU to everything else on the machine.

A busy headless Chromium can keep every core busy. Started in a session of its own, the
browser forms its own scheduling group on Linux (an autogroup), whose weight is set here to a
background nice value: while the machine is contended, the service, the connectors (and the
kill switch and status that go through them) and the user's own programs run first, and the
browser takes what they leave. An idle machine loses nothing. Where autogroups do not apply
nothing changes: on other systems, on kernels without them, and where this process sits in a
cgroup with its own CPU control (a container or a service manager's unit), whose weight then
decides instead. Linux shows that last case as an empty ``/proc/PID/autogroup``.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

log = logging.getLogger("ghostlight.browser")

BACKGROUND_NICE = 10
"""A background nice value, applied to the browser's whole group rather than to its processes
(a process's own nice only orders it within its group)."""


def run_in_background(pid: int) -> bool:
    """Give the scheduling group led by ``pid`` background priority. True when it took effect.

    Only a session leader's own group is changed, never the group this process is in (that
    would lower the caller's priority, not the browser's); best effort otherwise."""
    group = Path(f"/proc/{pid}/autogroup")
    try:
        theirs = _group_name(group)
        if not theirs:
            log.debug("browser %d is not scheduled by autogroup; left as it is", pid)
            return False
        if os.getsid(pid) != pid or theirs == _group_name(Path("/proc/self/autogroup")):
            log.debug("browser %d shares this process's scheduling group; left as it is", pid)
            return False
        group.write_text(f"{BACKGROUND_NICE}\n")
    except OSError as exc:
        log.debug("browser %d keeps its scheduling priority: %s", pid, exc)
        return False
    return True


def _group_name(path: Path) -> str:
    """``/autogroup-N`` from a ``/proc/PID/autogroup`` line ("/autogroup-N nice K"); empty when
    the line is (a process scheduled by its cgroup instead, or already gone)."""
    return path.read_text().partition(" ")[0]
