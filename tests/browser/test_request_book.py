"""The request book as a sans-IO object: no socket, no browser, no Trio run."""

from __future__ import annotations

import attrs

from ghostlight_trio.browser.errors import OutcomeUnknown
from ghostlight_trio.browser.request_book import LateAnswer, RequestBook, same_browser_run


@attrs.define(eq=False)
class Link:
    slot: int
    generation: str = "g1"


def test_request_ids_are_never_reused_and_proofs_name_slot_and_id() -> None:
    book, link = RequestBook(), Link(2)
    first, second = book.next_id(), book.next_id()
    assert (first, second) == ("r1", "r2")
    pending = book.open(second, link)
    assert pending.proof == "browser:2:r2"
    assert book.reply_to(link, "r2") is pending


def test_a_reply_settles_only_from_the_link_its_request_went_out_on() -> None:
    book, link, other = RequestBook(), Link(1), Link(1)
    pending = book.open(book.next_id(), link)
    pending.sent = True
    assert book.reply_to(other, "r1") is None  # same browser, another link: not this reply
    assert book.reply_to(link, "r1") is pending
    assert book.reply_to(link, "r404") is None


def test_waiting_counts_sent_requests_of_the_link_but_no_ping() -> None:
    book, link, other = RequestBook(), Link(1), Link(2)
    book.open(book.next_id(), link).sent = True
    book.open(book.next_id(), link, probe=True).sent = True
    book.open(book.next_id(), link)  # not sent yet
    book.open(book.next_id(), other).sent = True
    assert book.waiting_on(link) == 1


def test_a_request_closed_unanswered_is_remembered_and_its_late_answer_is_proof() -> None:
    book, link = RequestBook(), Link(1)
    pending = book.open(book.next_id(), link)
    pending.sent = True
    assert book.close(pending) is True
    assert book.waiting_on(link) == 0
    later_link = Link(1)  # the extension flushes held replies on its next link
    assert book.reply_to(later_link, "r1") == LateAnswer("r1", "browser:1:r1")
    assert book.reply_to(later_link, "r1") is None  # one answer proves it once


def test_a_settled_or_unsent_request_is_forgotten_on_close() -> None:
    book, link = RequestBook(), Link(1)
    settled = book.open(book.next_id(), link)
    settled.sent = True
    settled.settle({"ok": True})
    unsent = book.open(book.next_id(), link)
    assert book.close(settled) is False
    assert book.close(unsent) is False
    assert book.reply_to(link, "r1") is None
    assert book.reply_to(link, "r2") is None


def test_a_late_answer_from_another_browser_run_proves_nothing() -> None:
    book, link = RequestBook(), Link(1, "g1")
    pending = book.open(book.next_id(), link)
    pending.sent = True
    book.close(pending)
    assert book.reply_to(Link(1, "g2"), "r1") is None  # the browser restarted since
    assert book.reply_to(Link(2, "g1"), "r1") is None  # another browser
    assert book.reply_to(link, "r1") == LateAnswer("r1", "browser:1:r1")  # still remembered


def test_a_lost_link_fails_its_requests_and_remembers_those_sent() -> None:
    book, link, other = RequestBook(), Link(1), Link(2)
    sent = book.open(book.next_id(), link)
    sent.sent = True
    unsent = book.open(book.next_id(), link)
    elsewhere = book.open(book.next_id(), other)
    book.link_lost(link, OutcomeUnknown("gone"))
    assert isinstance(sent.failure, OutcomeUnknown) and sent.done.is_set()
    assert isinstance(unsent.failure, OutcomeUnknown)
    assert not elsewhere.done.is_set()
    assert book.close(sent) is False  # already remembered; its caller need not say so again
    assert book.reply_to(Link(1), "r1") == LateAnswer("r1", "browser:1:r1")
    assert book.reply_to(Link(1), "r2") is None


def test_a_restarted_browser_fails_its_requests_and_forgets_their_proofs() -> None:
    book, old, other = RequestBook(), Link(1, "g1"), Link(2)
    given_up = book.open(book.next_id(), old)
    given_up.sent = True
    book.close(given_up)
    running = book.open(book.next_id(), old)
    running.sent = True
    elsewhere = book.open(book.next_id(), other)
    book.browser_restarted(1, OutcomeUnknown("restarted"))
    assert isinstance(running.failure, OutcomeUnknown)
    assert not elsewhere.done.is_set()
    assert book.reply_to(old, "r1") is None  # no reply can come from a browser that ended


def test_the_unanswered_memory_is_bounded_oldest_first() -> None:
    book, link = RequestBook(max_unanswered=2), Link(1)
    for _ in range(3):
        pending = book.open(book.next_id(), link)
        pending.sent = True
        book.close(pending)
    assert book.reply_to(link, "r1") is None
    assert book.reply_to(link, "r2") == LateAnswer("r2", "browser:1:r2")
    assert book.reply_to(link, "r3") == LateAnswer("r3", "browser:1:r3")


def test_the_first_settlement_wins() -> None:
    book, link = RequestBook(), Link(1)
    pending = book.open(book.next_id(), link)
    pending.settle({"value": 1})
    pending.fail(OutcomeUnknown("too late"))
    assert pending.result == {"value": 1} and pending.failure is None


def test_same_browser_run() -> None:
    link = Link(1, "g1")
    assert same_browser_run(link, link)
    assert same_browser_run(link, Link(1, "g1"))
    assert not same_browser_run(link, Link(1, "g2"))
    assert not same_browser_run(link, Link(3, "g1"))
