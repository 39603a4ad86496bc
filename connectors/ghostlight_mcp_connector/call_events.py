"""Bridge events about tools/call, handled alike in both revisions.

The call book decides what happened; the revision only supplies how a finished call's result
looks (``render_result``) and how a corrective refusal is wrapped (``wrap_result``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from ghostlight_trio.transport.bridge import Fatal, Message, Outcome, Progress, Rejected, Started

from . import replies
from .actions import Action, SendBridge, WriteMessage
from .correlation import CallBook, Completed
from .jsonrpc import JsonObject
from .rendering import progress_notification

_log = logging.getLogger(__name__)


def answer_call_event(
    book: CallBook,
    message: Message,
    *,
    render_result: Callable[[Completed], WriteMessage],
    wrap_result: Callable[[JsonObject], JsonObject],
) -> list[Action]:
    """What to do for Started, Outcome, Rejected, Progress and Fatal; nothing for the rest."""
    if isinstance(message, Started):
        return [SendBridge(m) for m in book.started(message)]
    if isinstance(message, Outcome):
        completed = book.outcome(message)
        if completed is None:
            return []
        return [replies.uncertain_outcome(completed) or render_result(completed)]
    if isinstance(message, Rejected):
        refused = book.rejected(message)
        return [] if refused is None else [replies.refusal(refused, wrap_result)]
    if isinstance(message, Progress):
        update = book.progress(message)
        return [] if update is None else [WriteMessage(progress_notification(update))]
    if isinstance(message, Fatal):
        _log.error("service closed the bridge: %s", message.message)
    return []
