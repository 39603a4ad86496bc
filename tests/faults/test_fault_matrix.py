"""The fault matrix under pytest: the quick rows (no browser) in every run, every row when
``GHOSTLIGHT_FAULTS=all`` (``nox -s faults`` prints the full table instead)."""

from __future__ import annotations

import os

import pytest

from .scenarios import SCENARIOS, Row

ALL = os.environ.get("GHOSTLIGHT_FAULTS") == "all"

pytestmark = pytest.mark.process


@pytest.mark.parametrize(
    "scenario",
    [
        pytest.param(
            entry,
            id=entry[0],
            marks=[] if entry[4] or ALL else [pytest.mark.skip(reason="slow row: nox -s faults")],
        )
        for entry in SCENARIOS
    ],
)
async def test_fault(scenario) -> None:
    fault, expected, run, needs_browser, _quick = scenario
    from .stack import browser_available

    if needs_browser and not browser_available():
        pytest.skip("no Chromium or extension")
    row = Row(fault, expected)
    await run(row)
    if row.observed.startswith("skipped:"):  # the row could not run here: never a pass
        pytest.skip(row.observed)
    assert row.passed, f"{fault}: expected {expected}; observed {row.observed}"
