"""How both revisions end what the service can no longer answer, and a client's cancellation.

The call book and the tool list hold every request still owed an answer. When a connection
attempt fails, the connection is lost or the connector stops waiting, each gets the honest
error at once: "not sent" when it never left this process, "outcome unknown" once it may
have started.
"""

from __future__ import annotations

from . import failures, jsonrpc
from .actions import Action, SendBridge, WriteMessage
from .correlation import CallBook, Lost
from .jsonrpc import JsonObject, RequestId
from .link import Link
from .replies import unavailable
from .tool_list import ToolList


def connection_failed(book: CallBook, tools: ToolList, reason: str) -> list[Action]:
    """A connection attempt failed: what waited for it was never sent, so nothing ran."""
    message = failures.unavailable_message(reason)
    actions: list[Action] = [unavailable(call.request_id, message) for call in book.take_queued()]
    return actions + tools.abandon(message)


def connection_lost(book: CallBook, tools: ToolList) -> list[Action]:
    """The bridge went away: each call ends (outcome unknown once sent), each list request
    fails, and the tool set is fetched again next time (announced if it changed)."""
    actions: list[Action] = [
        _ended(call, failures.LOST_MESSAGE, "connection lost") for call in book.end_all()
    ]
    actions += tools.abandon(failures.unavailable_message("connection lost"))
    tools.store.invalidate(announce_if_changed=True)
    return actions


def given_up(book: CallBook, tools: ToolList, reason: str) -> list[Action]:
    """The connector stops waiting (``reason`` says why, e.g. "stdin closed and 60 s
    passed"): every request still owed an answer gets the honest error now, rather than
    none at all when the process exits."""
    unknown = failures.unanswered_message(reason)
    actions: list[Action] = [
        _ended(call, unknown, f"{reason} before the call was sent") for call in book.end_all()
    ]
    return actions + tools.abandon(
        failures.unavailable_message(f"{reason} before the tool list arrived")
    )


def cancelled(book: CallBook, tools: ToolList, link: Link, request_id: RequestId) -> list[Action]:
    """The client cancelled ``request_id``: it is owed no answer any more; a call the service
    has is cancelled there, and one not yet sent never goes out."""
    tools.store.withdraw(request_id)
    call = book.get(request_id)
    if call is not None and call.stage == "queued":
        link.withdraw(call.start)
    return [SendBridge(m) for m in book.cancel(request_id)]


def _ended(call: Lost, unknown: str, not_sent: str) -> WriteMessage:
    """Outcome unknown (``unknown``) once the Start had left this process, else simply not
    sent (``not_sent`` says why)."""
    request_id = call.call.request_id
    if call.may_have_started:
        data: JsonObject = {"outcome": "outcome_unknown", "nextStep": failures.UNKNOWN_NEXT_STEP}
        return WriteMessage(jsonrpc.error(request_id, failures.OUTCOME_UNKNOWN, unknown, data))
    return unavailable(request_id, failures.unavailable_message(not_sent))
