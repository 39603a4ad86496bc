"""Turn typed browser failures into the truthful tool results agents see."""

from __future__ import annotations

from ..engine.contracts import ToolResult
from .errors import BrowserError, BrowserFailure, BrowserStopped, OutcomeUnknown

_NEXT_STEP = {
    "extension": "check the Ghostlight extension in chrome://extensions, then retry",
    "cdp": "retake a screenshot to see the current page",
    "page": "take a screenshot or read_page to re-locate the element",
}


def failure_result(failure: BrowserFailure) -> ToolResult:
    """One result per failure kind; an unknown outcome is never reported as nothing happened."""
    hop = failure.hop
    message = failure.message.rstrip(".")
    if isinstance(failure, OutcomeUnknown):
        return ToolResult.text(
            f"[hop: {hop}] {message}. The browser action may or may not have happened."
            " Next step: check the tab with tabs_context_mcp before retrying.",
            kind="outcome_unknown",
        )
    if isinstance(failure, BrowserStopped):
        return ToolResult.text(
            f"[hop: {hop}] {message}. The browser action may or may not have happened."
            " Next step: stop and wait for the user; once they resume, check the tab with"
            " tabs_context_mcp before doing anything else.",
            kind="outcome_unknown",
        )
    if isinstance(failure, BrowserError):
        return ToolResult.error(f"[hop: {hop}] {message}. Next step: {_NEXT_STEP[hop]}.")
    return ToolResult.error(f"[hop: {hop}] {message}.")
