"""After an action the receipt waits for the page to stop moving, not for a fixed pause."""

from __future__ import annotations

import trio

from ghostlight_trio.tools.shared.receipts import SETTLE_MAX_SECONDS, observe_settled


def _script(*observations):
    calls = iter(observations)
    seen = []

    async def observe():
        value = next(calls)
        seen.append(trio.current_time())
        return value

    return observe, seen


async def test_a_quiet_page_settles_after_two_matching_observations(autojump_clock) -> None:
    quiet = {"mutations": 3, "renderSerial": 1, "url": "u", "title": "t"}
    observe, seen = _script(quiet, dict(quiet))
    start = trio.current_time()
    assert await observe_settled(observe) == quiet
    assert len(seen) == 2 and trio.current_time() - start < 0.2


async def test_a_busy_page_is_observed_until_it_stops_changing(autojump_clock) -> None:
    frames = [{"mutations": n, "renderSerial": n} for n in (1, 2, 3, 3)]
    observe, seen = _script(*frames)
    assert await observe_settled(observe) == frames[-1]
    assert len(seen) == 4


async def test_a_page_between_documents_reports_its_last_real_state_at_the_bound(
    autojump_clock,
) -> None:
    landing = {"mutations": 0, "url": "next"}
    observe, _ = _script(None, landing, *([None] * 50))
    start = trio.current_time()
    assert await observe_settled(observe) == landing
    assert trio.current_time() - start >= SETTLE_MAX_SECONDS
