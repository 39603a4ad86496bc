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
    tab whose previous effect had an unknown outcome. A step is now a call of its own, so its own
    lease carries the quarantine until the browser restarts."""
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


def _records(state: CancellationRace) -> list[tuple[str, str]]:
    return [(record.outcome, record.reported) for record in state.audit]


def test_a_reply_after_the_reply_deadline_settles_once() -> None:
    state = CancellationRace()
    try:
        state.browser_bounds(honour=False)
        state.start(cancel_at_once=False, steps=1, tool="navigate", valid=True, which=0)
        state.advance(seconds=61)  # the caller was told "outcome unknown" at 60 s
        state.truthful()
        assert _records(state) == []  # still settling privately
        state.reply(pick=0, answer="ok")  # the late reply: the real outcome is audited
        state.truthful()
        assert _records(state) == [("ok", "outcome_unknown")]
    finally:
        state.teardown()


def test_a_reply_after_the_settlement_bound_finds_nobody_and_the_tab_stays_quarantined() -> None:
    state = CancellationRace()
    try:
        state.browser_bounds(honour=False)
        state.start(cancel_at_once=False, steps=1, tool="navigate", valid=True, which=0)
        state.advance(seconds=181)  # cut at 180 s
        state.truthful()
        assert _records(state) == [("outcome_unknown", "outcome_unknown")]
        assert state.browser.pending() == []  # a reply now has no listener
        state.start(cancel_at_once=False, steps=1, tool="navigate", valid=True, which=0)
        state.advance(seconds=1)
        state.truthful()  # refused undispatched: the browser saw no second navigate
        assert [r.op for r in state.browser.requests] == ["navigate"]
    finally:
        state.teardown()
