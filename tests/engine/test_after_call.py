"""The after-call observers (a GIF recording's frames): told of successful calls on a tab while
it is leased, never able to change, lose or hold up the call's answer."""

from __future__ import annotations

import trio
from browser.session_driver import text  # tests/ is on sys.path (rootdir packages)

from ghostlight_trio.engine.contracts import ToolCall, ToolResult
from ghostlight_trio.scheduler import TabSurface
from ghostlight_trio.workspace import split_tab_id

from .harness import TAB, Harness


async def navigate(call: ToolCall) -> ToolResult:
    return ToolResult.text("navigated")


async def failing(call: ToolCall) -> ToolResult:
    return ToolResult.error("could not")


async def test_observers_see_successful_tab_calls_with_the_tab_still_leased(autojump_clock, nursery):
    seen: list[tuple[str, bool]] = []
    h: Harness

    async def observe(call: ToolCall, result: ToolResult) -> None:
        leased = h.scheduler.holds(TabSurface(*split_tab_id(TAB)), next(iter(h.session._active.values())))
        seen.append((call.context.operation, leased))

    h = Harness(nursery, {"navigate": navigate, "find": failing, "update_plan": navigate}, after_call=[observe])
    ws = h.workspace(TAB)
    for tool, arguments in (
        ("navigate", {"url": "https://a.test", "tabId": TAB}),
        ("find", {"query": "x", "tabId": TAB}),  # not ok: not observed
        ("update_plan", {"domains": [], "approach": []}),  # no tab: not observed
    ):
        h.work_id(h.start(tool, arguments, ws))
        await trio.sleep(1)
    assert seen == [("navigate", True)]


async def test_a_failing_or_stuck_observer_never_changes_or_holds_the_answer(autojump_clock, nursery):
    async def broken(call: ToolCall, result: ToolResult) -> None:
        raise RuntimeError("observer bug")

    looking = trio.Event()

    async def stuck(call: ToolCall, result: ToolResult) -> None:
        looking.set()
        await trio.sleep_forever()

    h = Harness(nursery, {"navigate": navigate}, after_call=[broken, stuck])
    ws = h.workspace(TAB)
    started = trio.current_time()
    work = h.work_id(h.start("navigate", {"url": "https://a.test", "tabId": TAB}, ws))
    await looking.wait()
    h.session.cancel(work)  # a cancel meanwhile cannot lose the finished action's answer
    await trio.sleep(10)
    [(answered_at, outcome)] = h.outcomes(work)
    assert outcome.kind == "ok" and text(outcome) == "navigated"
    assert answered_at - started <= 5.0 + 0.1
