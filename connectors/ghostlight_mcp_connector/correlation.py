"""Pending-call bookkeeping shared by both revisions: JSON-RPC id <-> bridge sequence <-> work id.

The JSON-RPC id stays here and never crosses the bridge. The book decides *what happened* to a
request (completed, refused, lost, cancelled); each dated revision decides how to say it.
"""

from __future__ import annotations

from typing import Literal, TypeGuard

import attrs

from ghostlight_trio.transport.bridge import (
    Cancel,
    Message,
    Outcome,
    Progress,
    Rejected,
    RequestContext,
    Start,
    Started,
)

from .jsonrpc import JsonObject, RequestId

ProgressToken = str | int
Stage = Literal["queued", "sent", "started"]


@attrs.define
class PendingCall:
    """One tools/call between its request and its single response."""

    request_id: RequestId
    start: Start
    stage: Stage = "queued"
    """Still in this process, sent, or started (the service gave it a work id)."""
    work_id: str | None = None
    progress_token: ProgressToken | None = None
    """The client's token when it asked for progress."""
    last_progress: float | None = None
    cancelled: bool = False
    """The client cancelled it: it is owed no answer."""


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

    def add(
        self,
        request_id: RequestId,
        operation: str,
        arguments: JsonObject,
        *,
        workspace_id: str | None,
        client_label: str,
        restriction: JsonObject | None,
        progress_token: ProgressToken | None,
    ) -> PendingCall:
        """Book a tools/call (queued, under a fresh sequence) and return it."""
        start = Start(
            sequence=self.next_sequence(),
            operation=operation,
            arguments=arguments,
            workspace_id=workspace_id,
            context=RequestContext(
                client_label=client_label,
                wants_progress=progress_token is not None,
                restriction=restriction,
            ),
        )
        call = PendingCall(request_id=request_id, start=start, progress_token=progress_token)
        self._by_sequence[start.sequence] = call
        self._by_request[request_id] = call
        return call

    def get(self, request_id: RequestId) -> PendingCall | None:
        return self._by_request.get(request_id)

    def queued(self) -> list[PendingCall]:
        return [c for c in self._by_sequence.values() if c.stage == "queued" and not c.cancelled]

    def mark_sent(self, call: PendingCall) -> None:
        call.stage = "sent"

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
        return Completed(call, message) if self._ended(call) else None

    def rejected(self, message: Rejected) -> Refused | None:
        call = self._by_sequence.get(message.sequence)
        return Refused(call, message) if self._ended(call) else None

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

    def _ended(self, call: PendingCall | None) -> TypeGuard[PendingCall]:
        """Forget a call the service ended; True when its client still waits for the answer."""
        if call is None:
            return False
        self._forget(call)
        return not call.cancelled

    def _forget(self, call: PendingCall) -> None:
        self._by_sequence.pop(call.start.sequence, None)
        if call.work_id is not None:
            self._by_work.pop(call.work_id, None)
        if self._by_request.get(call.request_id) is call:
            del self._by_request[call.request_id]
