"""The 60 s reply deadline and the 180 s settlement bound."""

from __future__ import annotations

import trio
from browser.session_driver import text  # tests/ is on sys.path (rootdir packages)

from ghostlight_trio.engine.contracts import ToolCall, ToolResult, UncertainEffect
from ghostlight_trio.scheduler import SchedulerLimits, TabSurface

from .harness import TAB, Harness

NAVIGATE = {"url": "https://example.test", "tabId": TAB}


def slow_navigate(seconds: float, finished: list[float]):
    async def handler(call: ToolCall) -> ToolResult:
        async def effect() -> None:
            await trio.sleep(seconds)
            finished.append(trio.current_time())

        await call.effects.atomic(effect)
        return ToolResult.text("navigated")

    return handler


async def test_effect_settling_at_90s_gets_one_outcome_unknown_at_60s(autojump_clock, nursery):
    finished: list[float] = []
    h = Harness(nursery, {"navigate": slow_navigate(90, finished)})
    ws = h.workspace(TAB, attached=False)  # idle grace 120 s unless pinned
    work = h.work_id(h.start("navigate", NAVIGATE, ws))

    await trio.sleep(70)
    assert [(t, o.kind) for t, o in h.outcomes(work)] == [(60, "outcome_unknown")]
    assert "do not retry automatically" in text(h.outcomes(work)[0][1])
    assert h.scheduler.holds(TabSurface(1, 7), h.session._active[work])  # lease still held
    assert h.engine.active_work == 1

    await trio.sleep(30)  # t = 100: the effect finished at 90 and the call settled
    assert finished == [90]
    assert len(h.outcomes(work)) == 1  # no second response, ever
    assert h.scheduler.active == 0
    assert h.engine.active_work == 0
    assert h.session.active == 0
    [record] = h.audit
    assert (record.outcome, record.reported) == ("ok", "outcome_unknown")
    assert record.duration == 90

    # The stream that used the workspace keeps it; once the stream goes, the 120 s grace runs.
    await trio.sleep_until(1000)
    assert h.workspaces.exists(ws)
    h.session.abandon()
    await trio.sleep_until(1119)
    assert h.workspaces.exists(ws)
    await trio.sleep_until(1121)
    assert not h.workspaces.exists(ws)
    assert len(h.outcomes(work)) == 1


async def test_effect_past_180s_is_cut_and_quarantines_the_surface(autojump_clock, nursery):
    finished: list[float] = []
    h = Harness(nursery, {"navigate": slow_navigate(500, finished)})
    ws = h.workspace(TAB)
    work = h.work_id(h.start("navigate", NAVIGATE, ws))
    await trio.sleep(200)
    assert finished == []
    assert [(t, o.kind) for t, o in h.outcomes(work)] == [(60, "outcome_unknown")]
    [record] = h.audit
    assert record.outcome == "outcome_unknown" and record.duration == 180
    assert h.scheduler.active == 0 and h.engine.active_work == 0
    assert h.scheduler.is_quarantined(TabSurface(1, 7))

    # Later work on that tab is refused undispatched.
    called: list[str] = []

    async def quick(call: ToolCall) -> ToolResult:
        called.append("ran")
        return ToolResult.text("ok")

    h.engine.handlers["navigate"] = quick
    later = h.work_id(h.start("navigate", NAVIGATE, ws))
    await trio.sleep(1)
    outcome = h.only_outcome(later)
    assert outcome.kind == "tool_error" and "quarantined" in text(outcome)
    assert called == []


async def test_a_handler_still_waiting_outside_an_effect_is_stopped_at_180s(autojump_clock, nursery):
    """The settlement bound holds for work between effects too, and for every call of a stream."""
    stopped: list[float] = []

    async def dawdle(call: ToolCall) -> ToolResult:
        try:
            await trio.sleep(1000)  # cancellable: no effect is in flight
        except trio.Cancelled:
            stopped.append(trio.current_time())
            raise
        return ToolResult.text("never")

    h = Harness(nursery, {"navigate": dawdle})
    ws = h.workspace(TAB)
    first = h.work_id(h.start("navigate", NAVIGATE, ws))
    await trio.sleep(10)
    second = h.work_id(h.start("navigate", NAVIGATE, ws))  # queued behind the first
    await trio.sleep(300)
    assert stopped == [180]  # only the first ever ran
    assert [(t, o.kind) for t, o in h.outcomes(first)] == [(60, "outcome_unknown")]
    assert h.engine.active_work == 0 and h.session.active == 0
    records = {record.work_id: record for record in h.audit}
    assert (records[first].outcome, records[first].duration) == ("outcome_unknown", 180)
    [(retired_at, retired)] = h.outcomes(second)
    assert (retired_at, retired.kind) == (40, "tool_error")  # retired undispatched (queue bound)
    assert records[second].effects_dispatched == 0


async def test_work_still_queued_at_60s_is_retired_as_not_started(autojump_clock, nursery):
    finished: list[float] = []
    h = Harness(
        nursery,
        {"navigate": slow_navigate(100, finished)},
        scheduler_limits=SchedulerLimits(queue_deadline=1000),
    )
    ws = h.workspace(TAB)
    first = h.work_id(h.start("navigate", NAVIGATE, ws))
    await trio.sleep(1)
    second = h.work_id(h.start("navigate", NAVIGATE, ws))
    await trio.sleep(200)
    assert [o.kind for _, o in h.outcomes(first)] == ["outcome_unknown"]
    [(t, outcome)] = h.outcomes(second)
    assert t == 61
    assert outcome.kind == "tool_error"
    assert "did not start" in text(outcome) and "nothing ran" in text(outcome)
    assert finished == [100]  # the second never dispatched
    assert sorted(r.effects_dispatched for r in h.audit) == [0, 1]


async def test_queue_deadline_retires_undispatched(autojump_clock, nursery):
    finished: list[float] = []
    h = Harness(nursery, {"navigate": slow_navigate(45, finished)})
    ws = h.workspace(TAB)
    h.start("navigate", NAVIGATE, ws)
    await trio.sleep(1)
    second = h.work_id(h.start("navigate", NAVIGATE, ws))
    await trio.sleep(60)
    [(t, outcome)] = h.outcomes(second)
    assert t == 31
    assert outcome.kind == "tool_error"
    assert "waited 30 s in the queue" in text(outcome)
    assert finished == [45]


async def test_an_unknown_outcome_that_quarantines_its_tab_says_so(autojump_clock, nursery):
    """The agent learns of the quarantine, and of what frees it, from the call that caused it."""

    async def uncertain(call: ToolCall) -> ToolResult:
        async def effect() -> None:
            raise UncertainEffect("browser:1:r5", "The browser did not answer within 20s")

        await call.effects.atomic(effect)
        return ToolResult.text("not reached")

    h = Harness(nursery, {"navigate": uncertain})
    ws = h.workspace(TAB)
    work = h.work_id(h.start("navigate", NAVIGATE, ws))
    await trio.sleep(1)
    outcome = h.only_outcome(work)
    assert outcome.kind == "outcome_unknown"
    assert text(outcome).endswith(
        "Tab 4294967303 is now quarantined: nothing more is sent to it until the browser answers"
        " that action or the tab is closed (tab_control, action close); time alone does not free"
        " it. To go on meanwhile, open a new tab with tabs_create_mcp."
    )
