"""Print what the fuzzers did (examples run, invariants checked) at the end of the run."""

from __future__ import annotations

from typing import Any

from .profiles import PROFILE, STATS


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if not STATS:
        return
    terminalreporter.section(f"ghostlight fuzz ({PROFILE} profile)")
    for key in sorted(STATS):
        terminalreporter.write_line(f"{key:<52} {STATS[key]:>10,}")
