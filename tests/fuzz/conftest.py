"""Print what the fuzzers did (examples run, invariants checked) at the end of the run."""

from __future__ import annotations

from typing import Any

from .profiles import BROKEN, INVARIANTS, PROFILE, STATS

RACES = {"wire race": "wire", "cancellation race": "engine"}
"""The race harnesses (their STATS prefix, and what the headline calls them)."""
NAMES = ("one-outcome", "truthful", "audit-once", "isolation", "fresh-call", "no-leak")


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if not STATS:
        return
    terminalreporter.section(f"ghostlight fuzz ({PROFILE} profile)")
    headline = races_headline()
    if headline:
        terminalreporter.write_line(headline)
    for key in sorted(STATS):
        terminalreporter.write_line(f"{key:<52} {STATS[key]:>10,}")


def races_headline() -> str:
    """Steps, examples and invariant checks of the race harnesses, on one line."""
    ran = [race for race in RACES if STATS[f"{race}: examples"]]
    if not ran:
        return ""
    steps = sum(STATS[f"{race}: steps"] for race in ran)
    examples = sum(STATS[f"{race}: examples"] for race in ran)
    each = ", ".join(
        f"{RACES[race]} {STATS[f'{race}: steps']:,} in {STATS[f'{race}: examples']:,}"
        for race in ran
    )
    checks = []
    for name in NAMES:
        check = f"{name} {INVARIANTS[name]:,} ok"
        if BROKEN[name]:
            check += f" and {BROKEN[name]:,} broken"
        checks.append(check)
    return f"fuzz: {steps:,} steps in {examples:,} examples ({each}); invariants: {', '.join(checks)}"
