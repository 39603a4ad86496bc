"""The private state of one call, owned by the one task that runs it."""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Any, Literal, Protocol

import attrs
import trio

from ..catalog.registry import ToolSpec
from ..scheduler import LeaseRequest
from ..transport.bridge import Message, Progress
from .contracts import WorkContext

CancelReason = Literal["cancelled", "caller", "not_started"]
"""Why a call's scope was cancelled: stopped by the service (the kill switch), by its caller
(a cancel, or the stream lost: the caller is told nothing), or not started in time."""


class ResponseSink(Protocol):
    """Where a stream's answers go; posting never blocks, so a stalled edge cannot stall work."""

    def post(self, message: Message) -> None: ...

    def post_progress(self, message: Progress) -> None:
        """Like ``post`` but may drop the message when the stream is backed up."""


@attrs.define(eq=False)
class CallState:
    """Mutable bookkeeping for one call; the immutable facts live in ``context``."""

    context: WorkContext
    spec: ToolSpec
    arguments: Mapping[str, Any]
    producer: Hashable
    sink: ResponseSink
    started_at: float
    settle_by: float
    wants_progress: bool = False
    minted_workspace: bool = False
    scope: trio.CancelScope = attrs.Factory(trio.CancelScope)
    """The call's cancellation token. Its settlement bound (``settle_by``) is applied by the
    session's deadline watcher rather than as a deadline here: one timer per stream, not one
    per call."""
    cancel_reason: CancelReason | None = None
    lease_request: LeaseRequest | None = None
    handler_started: bool = False
    effects_dispatched: int = 0
    dispatch_recorded: bool = False
    """The audit trail was told, ahead, that this call sends effects."""
    uncertain_proof: str | None = None
    quarantined: Any = None
    """The resource key this call's uncertain effect quarantined, if it did."""
    done_so_far: str = ""
    """What of the action took effect so far, as the handler last said (``Effects``)."""
    reported: str | None = None
    """The outcome kind the caller was sent, once sent."""
    finished_as: str | None = None
    """The kind of result the handler returned although the call was cancelled meanwhile:
    the caller hears of the cancel, the audit record of what happened."""
    settled: bool = False
    tab_left: bool = False
    """The call's tab has left its workspace, and the call acts only on what the service holds
    for it (``resources.acts_on_held_state``): nothing may reach the tab."""
    gate_facts: Any = None
    """The governance gate's ``GateFacts`` for the audit record, once it has decided."""
    unfit: tuple[str, str] | None = None
    """Which field of the call (``arguments`` or ``restriction``) held values JSON cannot, and
    what: the call is refused as having bad arguments, and those values go nowhere."""

    _caller_cancelled: trio.Event | None = attrs.field(default=None, init=False)

    def cancel(self, reason: CancelReason) -> None:
        if self.cancel_reason is None:
            self.cancel_reason = reason
        self.scope.cancel()
        if self._caller_cancelled is not None and self.cancel_reason == "caller":
            self._caller_cancelled.set()

    def caller_cancelled(self) -> trio.Event:
        """Set once the call's caller cancels it (or its stream is lost): a shielded effect
        whose rest is only a wait may end that wait early. Not for the kill switch, which
        stops the browser's work its own way. Made on first use, so calls that never ask pay
        nothing."""
        event = self._caller_cancelled
        if event is None:
            event = self._caller_cancelled = trio.Event()
            if self.cancel_reason == "caller":
                event.set()
        return event

    @property
    def may_have_started(self) -> bool:
        return self.handler_started or self.effects_dispatched > 0
