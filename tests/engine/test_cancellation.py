"""Cooperative cancellation: before queueing, while queued, during an atomic effect, between
composed steps, and on stream loss. A cancel never claims a dispatched effect did not happen."""

from __future__ import annotations

import trio
from browser.session_driver import text  # tests/ is on sys.path (rootdir packages)

from ghostlight_trio.engine.contracts import NotDispatched, ToolCall, ToolResult

from .harness import TAB, Harness

NAVIGATE = {"url": "https://example.test", "tabId": TAB}


class Recorder:
    """A navigate handler whose single atomic effect takes ``seconds``."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.invoked: list[float] = []
        self.effects_done: list[float] = []

    async def __call__(self, call: ToolCall) -> ToolResult:
        self.invoked.append(trio.current_time())

        async def effect() -> None:
            await trio.sleep(self.seconds)
            self.effects_done.append(trio.current_time())

        await call.effects.atomic(effect)
        return ToolResult.text("navigated")


def navigating(nursery: trio.Nursery, seconds: float) -> tuple[Recorder, Harness, str]:
    """A harness whose navigate is a ``Recorder(seconds)``, and a workspace holding ``TAB``."""
    tool = Recorder(seconds)
    h = Harness(nursery, {"navigate": tool})
    return tool, h, h.workspace(TAB)


async def first_and_queued(h: Harness, ws: str) -> tuple[str, str]:
    """Start a navigate, then another one a second later that queues behind it: both work ids,
    a second after the second start."""
    first = h.work_id(h.start("navigate", NAVIGATE, ws))
    await trio.sleep(1)
    second = h.work_id(h.start("navigate", NAVIGATE, ws))
    await trio.sleep(1)
    return first, second


async def test_cancel_before_queueing_runs_nothing(autojump_clock, nursery):
    tool, h, ws = navigating(nursery, 5)
    work = h.work_id(h.start("navigate", NAVIGATE, ws))
    h.session.cancel(work)  # the call's task has not even reached the scheduler
    await trio.sleep(10)
    outcome = h.only_outcome(work)
    assert outcome.kind == "cancelled"
    assert "nothing ran" in text(outcome)
    assert tool.invoked == []
    [record] = h.audit
    assert record.outcome == "cancelled" and record.effects_dispatched == 0


async def test_cancel_while_queued_retires_undispatched(autojump_clock, nursery):
    tool, h, ws = navigating(nursery, 10)
    first, second = await first_and_queued(h, ws)
    assert h.scheduler.queued == 1
    h.session.cancel(second)
    await trio.sleep(0.5)
    assert h.scheduler.queued == 0
    [(t, outcome)] = h.outcomes(second)
    assert t == 2 and outcome.kind == "cancelled" and "nothing ran" in text(outcome)
    await trio.sleep(20)
    assert h.only_outcome(first).kind == "ok"
    assert tool.invoked == [0]  # only the first ever ran


async def test_cancel_during_atomic_effect_drains_and_audits(autojump_clock, nursery):
    tool, h, ws = navigating(nursery, 10)
    work = h.work_id(h.start("navigate", NAVIGATE, ws))
    await trio.sleep(2)
    h.session.cancel(work)
    await trio.sleep(1)
    assert h.outcomes(work) == []  # still draining: nothing is claimed yet
    await trio.sleep(20)
    assert tool.effects_done == [10]  # the dispatched effect finished
    [(t, outcome)] = h.outcomes(work)
    assert t == 10 and outcome.kind == "cancelled"
    assert "allowed to finish" in text(outcome)
    [record] = h.audit
    # The trail keeps what happened (the handler finished) and that the caller, which
    # cancelled, was told nothing (MCP answers no cancelled request).
    assert (record.outcome, record.reported, record.effects_dispatched) == ("ok", None, 1)
    assert h.scheduler.active == 0 and h.engine.active_work == 0


async def test_composition_stops_between_steps(autojump_clock, nursery):
    steps_done: list[int] = []

    async def script(call: ToolCall) -> ToolResult:
        for number in range(1, 4):
            await call.effects.checkpoint()

            async def step(number: int = number) -> None:
                await trio.sleep(5)
                steps_done.append(number)

            await call.effects.atomic(step)
            call.effects.done_so_far(f"ran {number} of 3 steps")
        return ToolResult.text("all steps ran")

    h = Harness(nursery, {"script": script})
    ws = h.workspace(TAB)
    work = h.work_id(h.start("script", {"tabId": TAB, "steps": [{"tool": "navigate"}]}, ws))
    await trio.sleep(7)  # inside step 2
    h.session.cancel(work)
    await trio.sleep(20)
    assert steps_done == [1, 2]  # step 2 drained, step 3 never started
    outcome = h.only_outcome(work)
    assert outcome.kind == "cancelled"
    # What the handler said had taken effect is part of the answer.
    assert text(outcome).endswith("Done before it stopped: ran 2 of 3 steps.")
    assert h.audit[0].effects_dispatched == 2


async def test_stream_loss_cancels_queued_and_drains_dispatched(autojump_clock, nursery):
    tool, h, ws = navigating(nursery, 10)
    first, second = await first_and_queued(h, ws)
    h.session.abandon()
    await trio.sleep(30)
    assert tool.invoked == [0] and tool.effects_done == [10]
    kinds = {r.work_id: (r.outcome, r.reported, r.effects_dispatched) for r in h.audit}
    # The dispatched one finished (its record says so); the queued one never ran. Neither
    # answer reached anyone: the stream was gone.
    assert kinds == {first: ("ok", None, 1), second: ("cancelled", None, 0)}
    assert h.engine.active_work == 0
    # A lost stream takes no new work.
    reply = h.start("navigate", NAVIGATE, ws)
    assert reply.code == "shutting_down"  # type: ignore[union-attr]


async def test_late_cancel_after_settling_is_ignored(autojump_clock, nursery):
    tool, h, ws = navigating(nursery, 1)
    work = h.work_id(h.start("navigate", NAVIGATE, ws))
    await trio.sleep(5)
    h.session.cancel(work)
    h.session.cancel("no-such-work")
    await trio.sleep(5)
    assert h.only_outcome(work).kind == "ok"


async def test_an_effect_that_failed_before_anything_was_sent_is_not_counted(autojump_clock, nursery):
    """No browser came, say: the audit record counts no dispatched effect."""

    class Unsent(NotDispatched):
        pass

    async def navigate(call: ToolCall) -> ToolResult:
        async def effect() -> None:
            raise Unsent("no browser is attached; nothing was sent")

        try:
            await call.effects.atomic(effect)
        except Unsent as unsent:
            return ToolResult.error(str(unsent))
        return ToolResult.text("navigated")

    h = Harness(nursery, {"navigate": navigate})
    ws = h.workspace(TAB)
    work = h.work_id(h.start("navigate", NAVIGATE, ws))
    await trio.sleep(1)
    assert h.only_outcome(work).kind == "tool_error"
    [record] = h.audit
    assert (record.outcome, record.effects_dispatched) == ("tool_error", 0)

