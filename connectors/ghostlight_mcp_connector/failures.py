"""Application error codes and texts for failures that are about the service, not the call.

Both codes sit outside the JSON-RPC reserved range -32768..-32000, as MCP 2026-07-28 asks of
implementation-defined codes; they mean the same in both revisions.
"""

from __future__ import annotations

from typing import Final

SERVICE_UNAVAILABLE: Final = -33001
"""Nothing ran: the service could not be reached or refused to start the call. Safe to retry."""

OUTCOME_UNKNOWN: Final = -33003
"""The call may have run; whether it took effect is not known. Never retried by the edge."""

UNAVAILABLE_NEXT_STEP: Final = (
    "The call was not sent, so nothing ran. Retry it; if this repeats, run `ghostlight doctor`."
)
UNKNOWN_NEXT_STEP: Final = (
    "Inspect the browser state (tabs_context_mcp, read_page) before retrying: the call may have"
    " run."
)
CANCELLED_NEXT_STEP: Final = (
    "Inspect the browser state (tabs_context_mcp, read_page) to see what the call did; the"
    " message says whether it may be retried."
)
LOST_MESSAGE: Final = (
    "Outcome unknown: the connection to the Ghostlight service was lost while the call was"
    " running; it may have run."
)
UNKNOWN_MESSAGE: Final = "Outcome unknown: the call may have run."
CANCELLED_MESSAGE: Final = "Outcome unknown: the service cancelled the call; it may have run."
CANCELLED_LEAD: Final = "The service cancelled the call."
"""Followed by the service's own words on whether anything of it ran."""


def unavailable_message(reason: str) -> str:
    return f"Ghostlight service unavailable: {reason}"


def unanswered_message(reason: str) -> str:
    """The connector stopped waiting (``reason``, e.g. "stdin closed and 60 s passed") for a
    call the service had been sent."""
    return f"Outcome unknown: {reason} before the call answered; it may have run."
