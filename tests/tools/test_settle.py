"""After an action the page answers once when it has come to rest; the receipt says what kept
it from resting (still changing, requests under way, a navigation not yet loaded)."""

from __future__ import annotations

from typing import Any

import trio

from ghostlight_trio.browser.errors import BrowserError
from ghostlight_trio.tools.shared.receipts import (
    SETTLE_MAX_SECONDS,
    build_receipt,
    observe_settled,
    receipt_facts,
)


class Page:
    """A channel whose ``settle`` answers from a script (a dict, None for an extension without
    ``settle``, or an exception to raise), and whose ``observe`` (the polled fallback) too."""

    def __init__(self, settles: list[Any], observations: list[Any] = ()) -> None:  # type: ignore[assignment]
        self.settles = list(settles)
        self.observations = list(observations)
        self.asked: list[tuple[str, float]] = []

    async def settle(self, call: Any, tab: int, where: dict[str, Any], *, within: float) -> Any:
        self.asked.append(("settle", within))
        answer = self.settles.pop(0) if self.settles else BrowserError("gone", hop="page", code="no_answer")
        if isinstance(answer, Exception):
            raise answer
        return answer

    async def observe(self, call: Any, tab: int, where: Any) -> Any:
        self.asked.append(("observe", trio.current_time()))
        return self.observations.pop(0) if self.observations else None


async def _settled(page: Page) -> Any:
    return await observe_settled(page, None, 1, {"ref": "ref_1"})  # type: ignore[arg-type]


async def test_a_page_at_rest_is_observed_with_one_request(autojump_clock) -> None:
    quiet = {"document": "d1", "url": "u", "rest": "quiet", "mutations": 2}
    page = Page([quiet])
    start = trio.current_time()
    assert await _settled(page) == quiet
    assert [fn for fn, _ in page.asked] == ["settle"]
    assert page.asked[0][1] == SETTLE_MAX_SECONDS, "the page is given the whole bound"
    assert trio.current_time() == start, "no pause of the service's own"


async def test_a_page_that_leaves_is_followed_to_the_document_it_goes_to(autojump_clock) -> None:
    leaving = {"document": "d1", "url": "a", "rest": "leaving"}
    still_there = {"document": "d1", "url": "a", "rest": "quiet"}
    between = BrowserError("The page navigated", hop="page", code="page_changed")
    landed = {"document": "d2", "url": "b", "rest": "quiet"}
    page = Page([leaving, still_there, between, landed])
    assert await _settled(page) == landed
    bounds = [within for fn, within in page.asked]
    assert bounds == sorted(bounds, reverse=True) and bounds[-1] < SETTLE_MAX_SECONDS


async def test_a_tab_between_documents_at_the_bound_reports_the_page_it_leaves(autojump_clock) -> None:
    leaving = {"document": "d1", "url": "a", "rest": "leaving", "pendingUrl": "http://slow/"}
    page = Page([leaving] + [{**leaving, "rest": "quiet"}] * 100)
    start = trio.current_time()
    seen = await _settled(page)
    assert seen["rest"] == "leaving" and seen["pendingUrl"] == "http://slow/"
    assert trio.current_time() - start >= SETTLE_MAX_SECONDS


async def test_no_page_at_all_for_the_whole_bound_gives_no_observation(autojump_clock) -> None:
    assert await _settled(Page([])) is None


async def test_an_extension_without_settle_is_polled_until_two_looks_agree(autojump_clock) -> None:
    frames = [{"mutations": n, "renderSerial": n} for n in (1, 2, 3, 3)]
    page = Page([None], frames)
    assert await _settled(page) == frames[-1]
    assert [fn for fn, _ in page.asked] == ["settle", "observe", "observe", "observe", "observe"]


async def test_a_polled_page_that_never_agrees_is_said_to_be_moving(autojump_clock) -> None:
    page = Page([None], [{"mutations": n} for n in range(100)])
    assert (await _settled(page))["rest"] == "moving"


def _receipt(after: dict[str, Any]) -> dict[str, Any]:
    before = {"url": "u", "title": "t", "document": "d1", "mutations": 0, "renderSerial": 1}
    base = {"url": "u", "title": "t", "document": "d1", "mutations": 0, "renderSerial": 1}
    return build_receipt("left_click", 1, before, {**base, **after}, assurance="ref", target=None)


def test_a_page_still_changing_at_the_bound_is_said_to_be_moving() -> None:
    receipt = _receipt({"rest": "moving", "mutations": 40, "renderSerial": 9})
    observed = receipt["observedAfter"]
    assert observed["settled"] is False and observed["stillChanging"] is True
    assert "still changing" in receipt_facts(receipt)


def test_requests_still_under_way_are_counted() -> None:
    receipt = _receipt({"rest": "loading", "requestsPending": 2})
    assert receipt["observedAfter"]["requestsPending"] == 2
    assert "2 request(s) the action started were still under way" in receipt_facts(receipt)


def test_a_page_at_rest_says_nothing_of_rest() -> None:
    receipt = _receipt({"rest": "quiet"})
    assert receipt["observedAfter"] == {"mutations": 0, "renderAdvanced": False, "settled": True}
    assert receipt_facts(receipt) == "no other page change seen"


def test_a_page_that_began_to_leave_says_so_when_no_address_is_known() -> None:
    receipt = _receipt({"rest": "leaving"})
    assert "began to leave for another document" in receipt_facts(receipt)
