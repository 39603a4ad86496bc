"""A reply frame read as its request's result or typed failure (tab ids in prose made composite)."""

from __future__ import annotations

from typing import Any

from . import wire
from .errors import BrowserError, BrowserFailure, BrowserStopped
from .request_book import PendingCall
from .tabids import rewrite_text

ERROR_HOPS = frozenset({"extension", "cdp", "page"})


def settle(pending: PendingCall, frame: dict[str, Any], slot: int) -> None:
    """Settle ``pending`` from its ``response`` or ``error`` frame, read on browser ``slot``."""
    if frame["type"] == "response":
        result = frame.get("result")
        pending.settle(result if isinstance(result, dict) else {"value": result})
    else:
        pending.fail(failure_of(frame, slot, pending))


def failure_of(frame: dict[str, Any], slot: int, pending: PendingCall) -> BrowserFailure:
    """The typed failure an ``error`` frame reports."""
    raw_error = frame.get("error")
    error: dict[str, Any] = raw_error if isinstance(raw_error, dict) else {}
    hop = str(error.get("hop")) if error.get("hop") in ERROR_HOPS else "extension"
    message = str(error.get("message") or "The browser reported an unspecified error")
    code = error.get("code") if isinstance(error.get("code"), str) else None
    message = rewrite_text(message, slot)
    if code == wire.STOPPED_CODE:
        return BrowserStopped(message, proof=pending.proof, by_caller=pending.stop_asked)
    dialog = error.get("dialog")
    completed = error.get("completed")
    error_page = error.get("errorPage")
    return BrowserError(
        message,
        hop,
        code,
        dialog if isinstance(dialog, dict) else None,
        completed=completed if type(completed) is int and completed >= 0 else None,
        delivered=error.get("delivered") is True,
        error_page=error_page if isinstance(error_page, dict) else None,
    )
