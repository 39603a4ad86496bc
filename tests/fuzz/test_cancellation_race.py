"""The cancellation-race fuzzer (quick profile by default, long under ``nox -s fuzz``), and the
minimal examples it found, replayed as plain regression tests."""

from __future__ import annotations

from collections.abc import Callable

from hypothesis import given
from hypothesis import strategies as st
from hypothesis.stateful import run_state_machine_as_test

from .engine_machine import CancellationRace
from .profiles import LONG, fuzz_settings
from .wire_world import run_example

SETTINGS = fuzz_settings(quick=25, long=1500, steps=25)
WIRE_STEPS = 160 if LONG else 40
"""The most steps in one wire example (each example draws how many it takes)."""


def test_fuzz_cancellation_races_stay_truthful() -> None:
    run_state_machine_as_test(CancellationRace, settings=SETTINGS)


@fuzz_settings(quick=12, long=1300)
@given(st.data())
def test_fuzz_wire_races_stay_truthful(data: st.DataObject) -> None:
    """The bridge and both MCP revisions' edges: Cancel crossing Started and Outcome, writes cut
    part way, connections dropped with calls in flight and reconnected, late outcomes."""
    steps = data.draw(st.integers(1, WIRE_STEPS), label="steps")
    run_example(lambda strategy, label: data.draw(strategy, label=label), steps)


# --- minimal failing examples found by the fuzzers, kept as regression tests ------------------


def replay(*drawn: object) -> Callable[[object, str], object]:
    """A wire example's draws, given in order (what Hypothesis printed for it)."""
    queue = list(drawn)
    return lambda strategy, label: queue.pop(0)


def test_a_call_cancelled_while_its_connector_connects_never_runs() -> None:
    """Found by the wire fuzzer: an MCP 2026-07-28 client's first call waited in its connector
    while the bridge connected, and was cancelled there; the bridge came up and the call went
    out all the same, so the service ran a call cancelled before anything was sent."""
    run_example(replay("2026-07-28", "2025-11-25", "call_and_cancel", 0, "update_plan"), 1)


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
