"""Shared benchmark plumbing: isolated instances, a service subprocess, statistics."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ghostlight_trio.transport.endpoints import Endpoints

from .peers import instance_environ


def percentile(samples: list[float], q: float) -> float:
    """The sample nearest rank ``q`` (0 to 1) of the sorted samples: no interpolation, so the
    answer is always one that was measured (of 20 samples, p90 is the 18th smallest)."""
    if not samples:
        raise ValueError("no samples")
    if not 0.0 <= q <= 1.0:
        raise ValueError(f"q must be between 0 and 1, not {q}")
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def summarize(samples_s: list[float]) -> dict[str, float]:
    return {
        "n": len(samples_s),
        "p50_ms": statistics.median(samples_s) * 1000,
        "p90_ms": percentile(samples_s, 0.90) * 1000,
        "p95_ms": percentile(samples_s, 0.95) * 1000,
        "p99_ms": percentile(samples_s, 0.99) * 1000,
    }


def print_table(title: str, rows: list[tuple[str, dict[str, float] | str]], baseline: str | None = None) -> None:
    print(f"\n== {title}")
    base = next((stats for name, stats in rows if name == baseline and isinstance(stats, dict)), None)
    for name, stats in rows:
        if isinstance(stats, str):
            print(f"  {name:<44} skipped: {stats}")
            continue
        ratio = f"  x{stats['p50_ms'] / base['p50_ms']:.2f} vs {baseline}" if base and name != baseline else ""
        print(
            f"  {name:<44} n={stats['n']:<4.0f} p50={stats['p50_ms']:8.3f} ms"
            f"  p95={stats['p95_ms']:8.3f} ms  p99={stats['p99_ms']:8.3f} ms{ratio}"
        )


@contextmanager
def isolated_instance(name: str = "bench") -> Iterator[dict[str, str]]:
    """Environment for a private instance under temp dirs."""
    with tempfile.TemporaryDirectory(prefix="glt-bench-") as tmp:
        runtime = Path(tmp) / "run"
        runtime.mkdir(mode=0o700)
        env = dict(os.environ)
        env.update(
            GHOSTLIGHT_INSTANCE=name,
            GHOSTLIGHT_HOME=str(Path(tmp) / "home"),
            XDG_RUNTIME_DIR=str(runtime),
        )
        yield env


@contextmanager
def running_service(env: dict[str, str], argv: list[str] | None = None) -> Iterator[Endpoints]:
    """A warm service subprocess for the instance in ``env`` (``argv``: another launcher)."""
    with service_process(env, argv) as (endpoints, _process):
        yield endpoints


def cpu_seconds(pid: int) -> float:
    """CPU time a process (all its threads, ended ones included) has used so far: to the
    nanosecond from its Linux process CPU clock (what ``clock_getcpuclockid`` names),
    otherwise from ``/proc`` in clock ticks (10 ms, coarse for short runs)."""
    try:
        return time.clock_gettime_ns((~pid << 3) | _CPUCLOCK_SCHED) / 1e9
    except OSError:
        return _cpu_ticks(pid)


_CPUCLOCK_SCHED = 2
"""The kernel's process CPU clock of another process: ``(~pid << 3) | 2``."""


def _cpu_ticks(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@contextmanager
def service_process(
    env: dict[str, str], argv: list[str] | None = None
) -> Iterator[tuple[Endpoints, subprocess.Popen[bytes]]]:
    """``running_service``, also yielding the process (to read its CPU use). Raises
    ``RuntimeError`` with the service's stderr when it does not come up within 15 s."""
    with tempfile.TemporaryFile() as errors:
        process = subprocess.Popen(
            argv or [sys.executable, "-m", "ghostlight_trio", "service", "--keep-warm"],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=errors,
        )
        try:
            with instance_environ(env):  # the instance in ``env``, not this process's own
                endpoints = Endpoints.for_instance()
            deadline = time.monotonic() + 15
            while not endpoints.edge_socket.exists():
                if time.monotonic() > deadline or process.poll() is not None:
                    errors.seek(0)
                    raise RuntimeError(f"the service did not start: {errors.read()!r}")
                time.sleep(0.02)
            yield endpoints, process
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()

