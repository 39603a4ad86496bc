"""Every browser request between its frame and its one answer, as pure state (sans-IO).

The shore opens an entry per request, settles it from the reply its link delivers, and fails
what a lost link or a restarted browser can no longer answer. A request that went out and was
given up unanswered is remembered (bounded): its late answer, from the browser run it went to,
is the proof that its outcome is known, which lifts the quarantine it caused. Nothing here
reads, writes or sleeps; the caller waits on ``PendingCall.done``.
"""

from __future__ import annotations

import itertools
from collections import OrderedDict
from typing import Any, Protocol

import attrs
import trio

from .errors import BrowserFailure

MAX_UNANSWERED = 256
"""Timed-out requests remembered for their late answer; older ones stay quarantined until
their tab closes or their browser restarts."""


class Link(Protocol):
    """What the book needs of the link a request went out on."""

    @property
    def slot(self) -> int: ...
    @property
    def generation(self) -> str: ...


@attrs.define(eq=False)
class PendingCall:
    """One request awaiting exactly one reply (or a truthful failure)."""

    request_id: str
    connection: Link
    proof: str = ""
    """Names this exact request, so an uncertainty it leaves can be traced to it."""
    done: trio.Event = attrs.field(factory=trio.Event)
    sent: bool = False
    probe: bool = False
    """A liveness ping of the service's own, not a call's request."""
    stop_asked: bool = False
    """The service asked the extension to stop this one request (its caller cancelled)."""
    result: dict[str, Any] | None = None
    failure: BrowserFailure | None = None

    def settle(self, result: dict[str, Any]) -> None:
        if not self.done.is_set():
            self.result = result
            self.done.set()

    def fail(self, failure: BrowserFailure) -> None:
        if not self.done.is_set():
            self.failure = failure
            self.done.set()

    @property
    def unanswered(self) -> bool:
        """It went out and nothing settled it."""
        return self.sent and not self.done.is_set()


@attrs.frozen
class LateAnswer:
    """A reply to a request given up unanswered, from the browser run it went to."""

    request_id: str
    proof: str


class RequestBook:
    """The requests in flight on every link, and those given up unanswered (newest last)."""

    def __init__(self, max_unanswered: int = MAX_UNANSWERED) -> None:
        self._ids = itertools.count(1)
        self._pending: dict[Any, PendingCall] = {}
        self._unanswered: OrderedDict[Any, PendingCall] = OrderedDict()
        self._max_unanswered = max_unanswered

    def next_id(self) -> str:
        """A request id never used before on any link of this service."""
        return f"r{next(self._ids)}"

    def open(self, request_id: str, connection: Link, *, probe: bool = False) -> PendingCall:
        """Book a request about to go out on ``connection``."""
        pending = PendingCall(
            request_id, connection, proof=f"browser:{connection.slot}:{request_id}", probe=probe
        )
        self._pending[request_id] = pending
        return pending

    def close(self, pending: PendingCall) -> bool:
        """Its caller is done with it. True when it went out and stays unanswered: it is then
        remembered for its late answer."""
        self._pending.pop(pending.request_id, None)
        if not pending.unanswered:
            return False
        self._remember_unanswered(pending)
        return True

    def waiting_on(self, connection: Link) -> int:
        """Requests sent on the link that still wait for their answer (pings not counted)."""
        return sum(
            1
            for pending in self._pending.values()
            if pending.connection is connection and pending.sent and not pending.probe
        )

    def reply_to(self, connection: Link, request_id: Any) -> PendingCall | LateAnswer | None:
        """What a reply read on ``connection`` answers: a request in flight that went out on
        it, a request given up unanswered on the same browser run (forgotten now: its answer
        came), or nothing (another link's request, or a stranger's id: ids are text, so a
        list or map in its place is nobody's)."""
        if not isinstance(request_id, str):
            return None
        pending = self._pending.get(request_id)
        if pending is not None:
            return pending if pending.connection is connection else None
        late = self._unanswered.get(request_id)
        if late is None or not same_browser_run(late.connection, connection):
            return None
        del self._unanswered[request_id]
        return LateAnswer(late.request_id, late.proof)

    def link_lost(self, connection: Link, failure: BrowserFailure) -> None:
        """The link is gone: its requests in flight fail. The extension holds the replies it
        could not send and flushes them on its next link, so what went out is remembered."""
        for pending in list(self._pending.values()):
            if pending.connection is connection:
                if pending.unanswered:
                    self._remember_unanswered(pending)
                pending.fail(failure)

    def browser_restarted(self, slot: int, failure: BrowserFailure) -> None:
        """The browser of ``slot`` ended: no reply can come from it any more."""
        for request_id in [
            request_id
            for request_id, pending in self._unanswered.items()
            if pending.connection.slot == slot
        ]:
            del self._unanswered[request_id]
        for pending in list(self._pending.values()):
            if pending.connection.slot == slot:
                pending.fail(failure)

    def _remember_unanswered(self, pending: PendingCall) -> None:
        unanswered = self._unanswered
        unanswered[pending.request_id] = pending
        while len(unanswered) > self._max_unanswered:
            unanswered.popitem(last=False)


def same_browser_run(sent_on: Link, answered_on: Link) -> bool:
    """A reply proves its request's outcome when it comes from the browser run the request
    went to: the same link, or a later link of the same browser and generation (the extension
    flushes the replies its lost link could not carry)."""
    if sent_on is answered_on:
        return True
    return sent_on.slot == answered_on.slot and sent_on.generation == answered_on.generation
