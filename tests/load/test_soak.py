"""The soak's judgement: a baseline after the warm-up, medians at both ends, growth as goals."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from . import soak


def _samples(values: list[tuple[int, int]], step: float = 5.0) -> list[soak.Sample]:
    return [soak.Sample(i * step, rss, fds) for i, (rss, fds) in enumerate(values)]


def test_warm_up_is_the_longer_of_a_tenth_and_30s_but_half_a_short_run_at_most() -> None:
    assert soak.warm_up(600) == 60
    assert soak.warm_up(120) == 30
    assert soak.warm_up(40) == 20


def test_samples_before_the_warm_up_and_single_spikes_decide_nothing() -> None:
    flat = [100_000] * 30
    flat[0] = 50_000  # before the warm-up: the service was still starting
    flat[8] = 200_000  # one spike among the first samples after it
    flat[-2] = 300_000  # one spike among the last
    measured = soak.growth(_samples([(rss, 30) for rss in flat]), 30.0, lambda s: s.rss_kib)
    assert (measured.before, measured.after) == (100_000, 100_000)
    assert measured.flat


def test_steady_growth_past_the_goal_is_not_flat() -> None:
    rising = [(100 + 2 * i, 30 + i) for i in range(40)]
    rss = soak.growth(_samples(rising), 30.0, lambda s: s.rss_kib)
    fds = soak.growth(_samples(rising), 30.0, lambda s: s.fds)
    assert not rss.flat and rss.percent > 10
    assert not fds.flat
    line, met = soak.flat_goal("service open fds", fds, lambda n: f"{n:.0f}")
    assert not met and line.startswith("goal: service open fds growth after warm-up < 10%:")
    assert line.endswith("NOT met")


def test_no_sample_after_the_warm_up_is_no_goal_met() -> None:
    measured = soak.growth(_samples([(100, 30)] * 3), 60.0, lambda s: s.rss_kib)
    assert measured.samples == 0
    assert soak.flat_goal("service RSS", measured, str) == (
        "goal: service RSS growth after warm-up < 10%: not measured (no sample after the"
        " warm-up) NOT met",
        False,
    )


def test_this_process_is_measured() -> None:
    taken = soak.sample(os.getpid(), 0.0)
    assert taken.rss_kib > 0 and taken.fds > 0
    assert soak.sample(2**22 + 1, 0.0) == soak.Sample(0.0, 0, 0)  # past pid_max: gone


def test_cpu_readings_grow_with_work_done_and_a_gone_process_reads_zero() -> None:
    before = soak.CpuReading.now(os.getpid())
    deadline = time.process_time() + 0.3
    while time.process_time() < deadline:  # this thread's own work
        pass
    after = soak.CpuReading.now(os.getpid())
    assert after.main_thread - before.main_thread >= 0.2
    busy, total = after.machine_busy - before.machine_busy, after.machine_total - before.machine_total
    assert 0.2 <= busy <= total
    assert soak.main_thread_cpu(2**22 + 1) == 0.0  # past pid_max: gone
    stretch = before.until(after)
    assert stretch.seconds >= 0.3 and stretch.main_thread_seconds >= 0.2
    assert 0 < stretch.machine_percent <= 100
    assert 0 < stretch.main_thread_percent <= 110  # counted in clock ticks: one tick over at most


def test_audit_calls_reads_rotated_generations_oldest_first_without_events(tmp_path: Path) -> None:
    trail = tmp_path / "audit.jsonl"
    for name, call in [("audit.jsonl.2", "a"), ("audit.jsonl.1", "b"), ("audit.jsonl", "c")]:
        lines = [{"call": call, "reported": "ok"}, {"event": "dispatched", "call": call}]
        (tmp_path / name).write_text("".join(json.dumps(line) + "\n" for line in lines))
    assert [record["call"] for record in soak.audit_calls(trail)] == ["a", "b", "c"]
