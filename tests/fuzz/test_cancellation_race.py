"""The cancellation-race fuzzer (quick profile by default, long under ``nox -s fuzz``), and the
minimal examples it found, replayed as plain regression tests."""

from __future__ import annotations

from hypothesis.stateful import run_state_machine_as_test

from .engine_machine import CancellationRace
from .profiles import fuzz_settings

SETTINGS = fuzz_settings(quick=25, long=1500, steps=25)


def test_fuzz_cancellation_races_stay_truthful() -> None:
    run_state_machine_as_test(CancellationRace, settings=SETTINGS)


# --- minimal failing examples found by the fuzzer, kept as regression tests -------------------


def test_an_uncertain_composed_step_quarantines_its_tab() -> None:
    """Found by the fuzzer: a composed step whose browser request timed out left its tab free
    (the composition's call-wide lease is service-local), so a later navigate was dispatched on a
    tab whose previous effect had an unknown outcome. The step's own lease now carries the
    quarantine until the browser restarts."""
    state = CancellationRace()
    try:
        state.truthful()
        state.start(cancel_at_once=False, steps=1, tool="script", valid=True, which=0)
        state.truthful()
        state.advance(seconds=31)  # past the step's 20 s bound: outcome unknown
        state.truthful()
        state.start(cancel_at_once=False, steps=1, tool="navigate", valid=True, which=0)
        state.truthful()
    finally:
        state.teardown()
