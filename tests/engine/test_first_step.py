"""``after_first_step`` drives a coroutine unchanged and reports the end of its first step once."""

from __future__ import annotations

import pytest
import trio
import trio.testing

from ghostlight_trio.engine.first_step import after_first_step


async def test_a_coroutine_that_finishes_at_once_reports_its_step_and_returns() -> None:
    ended: list[str] = []

    async def quick() -> int:
        ended.append("body")
        return 7

    assert await after_first_step(quick(), lambda: ended.append("step")) == 7
    assert ended == ["body", "step"]


async def test_the_step_ends_before_the_first_wait_and_later_waits_pass_through() -> None:
    ended: list[str] = []

    async def waits() -> str:
        ended.append("before")
        await trio.sleep(0.01)
        ended.append("between")
        await trio.sleep(0.01)
        return "done"

    assert await after_first_step(waits(), lambda: ended.append("step")) == "done"
    assert ended == ["before", "step", "between"]


async def test_cancellation_reaches_the_coroutine_and_its_cleanup_runs() -> None:
    events: list[str] = []

    async def waits_forever() -> None:
        try:
            await trio.sleep_forever()
        finally:
            events.append("cleanup")

    with trio.CancelScope() as scope:
        async with trio.open_nursery() as nursery:

            async def run() -> None:
                await after_first_step(waits_forever(), lambda: events.append("step"))

            nursery.start_soon(run)
            await trio.testing.wait_all_tasks_blocked()
            scope.cancel()
    assert scope.cancelled_caught
    assert events == ["step", "cleanup"]


async def test_a_failure_in_the_first_step_still_reports_it_and_propagates() -> None:
    ended: list[str] = []

    async def fails() -> None:
        raise ValueError("broken")

    with pytest.raises(ValueError, match="broken"):
        await after_first_step(fails(), lambda: ended.append("step"))
    assert ended == ["step"]


async def test_an_exception_after_a_wait_propagates_with_its_own_type() -> None:
    async def fails_later() -> None:
        await trio.lowlevel.checkpoint()
        raise KeyError("later")

    with pytest.raises(KeyError):
        await after_first_step(fails_later(), lambda: None)
