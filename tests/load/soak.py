"""What a soak watches of the service process, and how the load run's goals are judged.

The service's resident memory (``VmRSS``) and its open file descriptors are sampled every few
seconds. Growth is judged from a baseline taken after a warm-up (the longer of 10% of the run
and 30 s), as the median of the first few samples after it against the median of the last few,
so one spike at either end decides nothing.
"""

from __future__ import annotations

import json
import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs
import trio

FLAT_GOAL_PERCENT = 10.0
"""Growth after warm-up that still counts as flat."""
FEW = 5
"""Samples whose median is each end of the comparison."""


@attrs.frozen
class Sample:
    at: float
    """Seconds since the measured window began."""
    rss_kib: int
    fds: int


@attrs.frozen
class Growth:
    before: float
    after: float
    samples: int
    """Samples after the warm-up (0: none, so nothing was measured)."""

    @property
    def percent(self) -> float:
        return (self.after - self.before) / self.before * 100 if self.before else 0.0

    @property
    def flat(self) -> bool:
        return self.samples > 0 and self.percent < FLAT_GOAL_PERCENT


def rss_kib(pid: int) -> int:
    """The process's resident set (``VmRSS``) in KiB; 0 once it is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def open_fds(pid: int) -> int:
    """How many file descriptors the process has open now; 0 once it is gone."""
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return 0


def main_thread_cpu(pid: int) -> float:
    """CPU seconds the process's main thread has used (a browser's: the thread that runs every
    tab operation and extension API call); 0 once it is gone. From ``/proc``, as
    ``bench/harness.py``'s fallback reads a whole process: the kernel's thread CPU clock of
    another process cannot be read, and the test packages do not import each other (pytest
    imports each as a package of its own)."""
    try:
        fields = Path(f"/proc/{pid}/task/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def machine_cpu() -> tuple[float, float]:
    """(busy, total) CPU seconds of the whole machine since boot, summed over its CPUs
    (``/proc/stat``): what two readings differ by says how busy it was meanwhile."""
    try:
        fields = [
            int(value) for value in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]
        ]
    except (OSError, ValueError):
        return 0.0, 0.0
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle, iowait
    total = sum(fields[:8])  # guest time is already counted in user and nice
    tick = os.sysconf("SC_CLK_TCK")
    return (total - idle) / tick, total / tick


@attrs.frozen
class CpuReading:
    """The clock, the machine's CPU seconds and one process's main-thread CPU seconds, read
    together; two readings give how busy both were in between (``Busy``)."""

    at: float
    machine_busy: float
    machine_total: float
    main_thread: float

    @classmethod
    def now(cls, pid: int) -> CpuReading:
        busy, total = machine_cpu()
        return cls(time.monotonic(), busy, total, main_thread_cpu(pid))

    def until(self, later: CpuReading) -> Busy:
        total = later.machine_total - self.machine_total
        busy = later.machine_busy - self.machine_busy
        return Busy(
            seconds=later.at - self.at,
            machine_percent=busy / total * 100 if total else 0.0,
            main_thread_seconds=later.main_thread - self.main_thread,
        )


@attrs.frozen
class Busy:
    """How long a stretch took, how busy the machine's CPUs were in it, and how long one
    process's main thread ran in it."""

    seconds: float
    machine_percent: float
    main_thread_seconds: float

    @property
    def main_thread_percent(self) -> float:
        return self.main_thread_seconds / self.seconds * 100 if self.seconds else 0.0


def sample(pid: int, at: float) -> Sample:
    return Sample(at, rss_kib(pid), open_fds(pid))


def sample_interval(seconds: float) -> float:
    """Every few seconds: about sixty samples in a short run, one per 5 s in a long one."""
    return min(5.0, max(1.0, seconds / 60))


def warm_up(seconds: float) -> float:
    """The longer of 10% of the run and 30 s, but never more than half a short run."""
    return min(max(0.1 * seconds, 30.0), seconds / 2)


async def sample_until_cancelled(
    pid: int, began: float, interval: float, into: list[Sample]
) -> None:
    while True:
        into.append(sample(pid, trio.current_time() - began))
        await trio.sleep(interval)


def growth(samples: list[Sample], after: float, value: Callable[[Sample], float]) -> Growth:
    """The median of the first few samples taken from ``after`` on against the median of the
    last few (fewer of each when there are not enough to keep the two ends apart)."""
    warm = [value(s) for s in samples if s.at >= after]
    if not warm:
        return Growth(0.0, 0.0, 0)
    few = max(1, min(FEW, len(warm) // 3))
    return Growth(statistics.median(warm[:few]), statistics.median(warm[-few:]), len(warm))


def goal_line(name: str, detail: str, met: bool) -> str:
    return f"goal: {name}: {detail} {'met' if met else 'NOT met'}"


def flat_goal(name: str, measured: Growth, unit: Callable[[float], str]) -> tuple[str, bool]:
    """The goal line of one flat-after-warm-up figure."""
    title = f"{name} growth after warm-up < {FLAT_GOAL_PERCENT:g}%"
    if not measured.samples:
        return goal_line(title, "not measured (no sample after the warm-up)", False), False
    detail = f"{unit(measured.before)} -> {unit(measured.after)} ({measured.percent:+.1f}%)"
    return goal_line(title, detail, measured.flat), measured.flat


def audit_calls(path: Path) -> list[dict[str, Any]]:
    """Every call record of the audit trail, rotated generations included (oldest first);
    event records (``dispatched``, hold, resume ...) are left out."""
    generations = sorted(
        path.parent.glob(f"{path.name}.*"),
        key=lambda p: int(p.suffix[1:]) if p.suffix[1:].isdigit() else 0,
        reverse=True,
    )
    records = []
    for file in [*generations, path]:
        try:
            lines = file.read_text().splitlines()
        except FileNotFoundError:
            continue
        records += [json.loads(line) for line in lines if line.strip()]
    return [record for record in records if "event" not in record]
