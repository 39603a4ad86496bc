"""Turn typed browser failures into the truthful tool results agents see."""

from __future__ import annotations

import re

from ..engine.contracts import ToolResult
from .errors import BrowserError, BrowserFailure, BrowserStopped, OutcomeUnknown
from .net_errors import error_page_read_result

UNANSWERED_CODES = frozenset({"page_timeout", "read_timeout"})
"""A request the tab's page (``page_timeout``) or the browser (``read_timeout``) did not answer
in time: most often a page busy with a script of its own."""
BUSY_CODES = UNANSWERED_CODES | {"no_answer", "navigation_pending"}
"""How a page that is there but does not answer fails a request (a page that is leaving
answers until the next one commits: one that does not, while a navigation waits, is held)."""
OUT_OF_REACH_CODES = frozenset({"content_unavailable", "error_page"})
"""A page no content script may read (about:blank, chrome://, the browser's error page)."""
PROTECTED_PAGE_CODE = "protected_page"
"""The extension refused: the tab shows the browser's own page, an extension's or a file, where
no agent is let in whatever the service asks."""

_NEXT_STEP = {
    "extension": "check the Ghostlight extension in chrome://extensions, then retry",
    "cdp": "retake a screenshot to see the current page",
    "page": "take a screenshot or read_page to re-locate the element",
}
_CODE_NEXT_STEP = {
    "bad_args": "correct that argument and call again",
    "bad_selector": "correct the CSS selector and call again",
    "not_a_file_input": "pass the ref of the file input itself (read_page with filter all, or"
    " find with 'file input'), or of the button or label that opens it when one file input goes"
    " with it",
    "single_file": "send one file to this input, or the rest to another file input",
    "dialog_open": "answer the dialog with the dialog tool (action accept or dismiss, or respond"
    " with text for a prompt), then retry",
    "error_page": "a screenshot shows the browser's error and what failed. Navigate to another"
    " URL, or to this one again only once that is fixed: a redirect loop, a refused connection or"
    " a wrong address fails the same way every time",
    "content_unavailable": "navigate the tab to a web page (http or https) first; Chrome keeps"
    " extensions out of about:blank, chrome:// pages and the Chrome Web Store",
    "resize_failed": "pick a size that fits the screen (Chrome keeps at least half of a window"
    " on screen)",
    "no_history": "there is no such page in this tab's history; navigate to a URL instead",
    "tab_not_found": "the tab is gone; list the workspace's tabs with tabs_context_mcp",
    "tab_closed": "the tab is gone; list the workspace's tabs with tabs_context_mcp",
    "navigate_failed": "check the URL (a well-formed http or https address) and try again",
    "disabled": "the page has not enabled this control yet: do what it asks first, or pick"
    " another element",
    "read_only": "this field cannot be edited; pick another element",
    "unsupported_control": "set files with file_upload, not form_input",
    "not_a_control": "pass the ref of the input, select or textarea itself (find or read_page"
    " with filter interactive)",
    "bad_value": "send true or false for a checkbox or radio button",
    "no_such_option": "send one of the options listed",
    "disabled_option": "send one of the options that can be chosen, listed above, or ask the user"
    " if only the disabled one will do",
    "radio_uncheck": "choose another option of the group instead",
    "value_kept": "look at the control with a screenshot or read_page: the page may want another"
    " step first, or refuse this value. A click with computer acts as a person's would",
    "page_changed": "let the new page load (wait_for with state settled), then call it again",
    "page_unresponsive": "if a JavaScript dialog is showing there, the user must answer it in the"
    " browser window (or close the tab with tab_control); otherwise wait a moment and retry",
    "page_crashed": "reload the tab with tab_control (action reload); the page starts over, so"
    " what was typed or changed on it and not saved is gone",
    "page_unloaded": "reload the tab with tab_control (action reload) to load its page again",
    "navigation_pending": "wait for the new page with wait_for (state settled), or call again in a"
    " moment; if the tab stays stuck, close it with tab_control and open a new one",
    "page_timeout": "the page is busy (most likely running a script of its own) and answers nothing"
    " until it is done: wait a moment and call again, or reload the tab with tab_control (action"
    " reload) if it stays busy. A change sent to it may still take effect once it is free, so look"
    " at the page before repeating one",
    "read_timeout": "the tab's page is most likely busy (a script of its own holds every request to"
    " it): wait a moment and call again, or reload the tab with tab_control (action reload) if it"
    " stays busy. Only if no tab answers at all, check the Ghostlight extension in"
    " chrome://extensions",
}
_TIMED_OUT = re.compile(r"\bdid not answer within\b")
_BUSY_PAGE = (
    "; the usual cause is the tab's page being busy (a script of its own, which holds every request"
    " to it), a stalled browser the rarer one"
)


def failure_result(failure: BrowserFailure, *, reaches_page: bool = False) -> ToolResult:
    """One result per failure kind; an unknown outcome is never reported as nothing happened.
    ``reaches_page``: the request went to the tab's page, so a busy page may be why it timed out
    (never said of requests the browser alone carries out, such as creating a tab)."""
    hop = failure.hop
    message = failure.message.rstrip(".")
    if isinstance(failure, OutcomeUnknown):
        if reaches_page and _TIMED_OUT.search(message):
            message += _BUSY_PAGE
        return ToolResult.text(
            f"[hop: {hop}] {message}. The browser action may or may not have happened."
            " Next step: check the tab with tabs_context_mcp before retrying.",
            kind="outcome_unknown",
        )
    if isinstance(failure, BrowserStopped) and failure.by_caller:
        # Its caller is told nothing (it cancelled): this is what the audit records.
        return ToolResult.text(
            f"[hop: {hop}] {message}. The call was cancelled while the browser waited on it;"
            " what it had set going (a page load) was not waited for and may go on.",
            kind="cancelled",
        )
    if isinstance(failure, BrowserStopped):
        return ToolResult.text(
            f"[hop: {hop}] {message}. The browser action may or may not have happened."
            " Next step: stop and wait for the user; once they resume, check the tab with"
            " tabs_context_mcp before doing anything else.",
            kind="outcome_unknown",
        )
    if isinstance(failure, BrowserError) and failure.code == PROTECTED_PAGE_CODE:
        # The extension's own floor: the tab shows a page no agent may enter. The governance
        # gate words it as the denial it is (``GovernanceGate.after``).
        return ToolResult.text(message, kind="denied")
    if isinstance(failure, BrowserError):
        named = error_page_read_result(failure.error_page) if failure.code == "error_page" else None
        if named is not None:  # the browser's error page, and what it shows failed
            return named
        step = _CODE_NEXT_STEP.get(failure.code or "", _NEXT_STEP[hop])
        if failure.delivered:
            # The page took the request and then went away: nothing is left running there to
            # wait for (no quarantine), but whether it acted first is not known.
            return ToolResult.text(f"[hop: {hop}] {message}. Next step: {step}.", kind="outcome_unknown")
        return ToolResult.error(f"[hop: {hop}] {message}. Next step: {step}.")
    return ToolResult.error(f"[hop: {hop}] {message}.")
