"""Pending-call bookkeeping shared by both revisions: JSON-RPC id <-> bridge sequence <-> work id.

The JSON-RPC id stays here and never crosses the bridge. The book decides *what happened* to a
request (completed, refused, lost, cancelled); each dated revision decides how to say it.
"""

from __future__ import annotations

from typing import Any, Literal

import attrs

from ghostlight_trio.transport.bridge import (
    Cancel,
    Message,
    Outcome,
    Progress,
    Rejected,
    Start,
    Started,
)

from .jsonrpc import RequestId

ProgressToken = str | int
Stage = Literal["queued", "sent", "started"]


@attrs.define
class PendingCall:
    """One tools/call between its request and its single response."""

    request_id: RequestId
    start: Start
    progress_token: ProgressToken | None = None
    stage: Stage = "queued"
    work_id: str | None = None
    cancelled: bool = False
    last_progress: float | None = None
    tag: Any = None
    """Revision-specific facts kept for rendering (never sent to the service)."""


@attrs.frozen
class Completed:
    call: PendingCall
    outcome: Outcome


@attrs.frozen
class Refused:
    call: PendingCall
    rejected: Rejected


@attrs.frozen
class Lost:
    """The bridge went away; ``may_have_started`` is True once the Start left this process."""

    call: PendingCall
    may_have_started: bool


@attrs.frozen
class ProgressUpdate:
    call: PendingCall
    progress: Progress


class CallBook:
    """All calls of one stdio process, indexed three ways; sequences are never reused."""

    def __init__(self) -> None:
        self._next_sequence = 1
        self._by_sequence: dict[int, PendingCall] = {}
        self._by_work: dict[str, PendingCall] = {}
        self._by_request: dict[RequestId, PendingCall] = {}

    def next_sequence(self) -> int:
        sequence = self._next_sequence
        self._next_sequence += 1
        return sequence

    def is_active(self, request_id: RequestId) -> bool:
        return request_id in self._by_request

    def add(self, call: PendingCall) -> None:
        self._by_sequence[call.start.sequence] = call
        self._by_request[call.request_id] = call

    def get(self, request_id: RequestId) -> PendingCall | None:
        return self._by_request.get(request_id)

    def queued(self) -> list[PendingCall]:
        return [c for c in self._by_sequence.values() if c.stage == "queued" and not c.cancelled]

    def mark_sent(self, call: PendingCall) -> None:
        call.stage = "sent"

    def owns_sequence(self, sequence: int) -> bool:
        return sequence in self._by_sequence

    def started(self, message: Started) -> list[Message]:
        """Bind the work id; a call cancelled meanwhile is cancelled on the service now."""
        call = self._by_sequence.get(message.sequence)
        if call is None:
            return []
        call.stage = "started"
        call.work_id = message.work_id
        self._by_work[message.work_id] = call
        if call.cancelled:
            return [Cancel(work_id=message.work_id, reason="cancelled by the MCP client")]
        return []

    def outcome(self, message: Outcome) -> Completed | None:
        call = self._by_work.get(message.work_id)
        if call is None:
            return None
        self._forget(call)
        return None if call.cancelled else Completed(call, message)

    def rejected(self, message: Rejected) -> Refused | None:
        call = self._by_sequence.get(message.sequence)
        if call is None:
            return None
        self._forget(call)
        return None if call.cancelled else Refused(call, message)

    def progress(self, message: Progress) -> ProgressUpdate | None:
        """Only for a live, uncancelled call that asked for progress, strictly increasing."""
        call = self._by_work.get(message.work_id)
        if call is None or call.cancelled or call.progress_token is None:
            return None
        if call.last_progress is not None and message.progress <= call.last_progress:
            return None
        call.last_progress = message.progress
        return ProgressUpdate(call, message)

    def cancel(self, request_id: RequestId) -> list[Message]:
        """The client gave up: no response will be sent; tell the service if it has the work."""
        call = self._by_request.pop(request_id, None)
        if call is None:
            return []
        call.cancelled = True
        if call.stage == "queued":
            self._forget(call)
            return []
        if call.stage == "started" and call.work_id is not None:
            return [Cancel(work_id=call.work_id, reason="cancelled by the MCP client")]
        return []  # sent, not yet started: Cancel goes out when Started arrives

    def owed(self) -> int:
        """How many calls still owe the client an answer (one it cancelled owes none)."""
        return len(self._by_request)

    def awaiting_service(self) -> bool:
        """Whether a call that left this process still waits for the service's answer."""
        return any(call.stage != "queued" for call in self._by_sequence.values())

    def take_queued(self) -> list[PendingCall]:
        """Remove and return calls that never left this process (connection attempt failed)."""
        calls = self.queued()
        for call in calls:
            self._forget(call)
        return calls

    def end_all(self) -> list[Lost]:
        """Every call ends now (the connection is gone, or its answer will not be waited for
        any longer); cancelled ones end silently."""
        lost = [
            Lost(call, may_have_started=call.stage != "queued")
            for call in self._by_sequence.values()
            if not call.cancelled
        ]
        self._by_sequence.clear()
        self._by_work.clear()
        self._by_request.clear()
        return lost

    def _forget(self, call: PendingCall) -> None:
        self._by_sequence.pop(call.start.sequence, None)
        if call.work_id is not None:
            self._by_work.pop(call.work_id, None)
        if self._by_request.get(call.request_id) is call:
            del self._by_request[call.request_id]
