"""Browser failures worded for the agent: what happened, and a next step that fits it."""

from __future__ import annotations

from ghostlight_trio.browser.errors import BrowserError, OutcomeUnknown
from ghostlight_trio.browser.failures import failure_result


def _text(result) -> str:
    return result.content[0].text


def test_a_page_that_changed_under_the_call_says_to_let_it_load_and_call_again() -> None:
    result = failure_result(
        BrowserError("The page navigated or reloaded while it was being reached", "page", "page_changed")
    )
    assert result.kind == "tool_error"
    assert _text(result).endswith(
        "Next step: let the new page load (wait_for with state settled), then call it again."
    )


def test_other_page_failures_keep_the_page_hop_step_and_unknown_outcomes_say_so() -> None:
    blocked = failure_result(BrowserError("Chrome does not let extensions into this page", "page", "content_unavailable"))
    assert _text(blocked).endswith("Next step: navigate the tab to a web page (http or https) first;"
                                   " Chrome keeps extensions out of about:blank, chrome:// pages and"
                                   " the Chrome Web Store.")
    missing = failure_result(BrowserError("No element behind ref_4", "page", "ref_not_found"))
    assert _text(missing).endswith("Next step: take a screenshot or read_page to re-locate the element.")
    unknown = failure_result(OutcomeUnknown("The browser did not answer within 20s"))
    assert unknown.kind == "outcome_unknown"
    assert "may or may not have happened" in _text(unknown)


def test_a_bad_argument_the_extension_caught_points_at_the_argument_not_the_extension() -> None:
    result = failure_result(
        BrowserError("args.width must be a number of pixels between 100 and 16384", "extension", "bad_args")
    )
    assert _text(result).endswith("Next step: correct that argument and call again.")
    assert "chrome://extensions" not in _text(result)


def test_a_form_control_that_refused_says_what_to_do_about_that_control() -> None:
    for code, step in (
        ("disabled", "the page has not enabled this control yet"),
        ("unsupported_control", "set files with file_upload"),
        ("bad_value", "send true or false"),
        ("navigate_failed", "check the URL"),
    ):
        said = _text(failure_result(BrowserError("refused", "page", code)))
        assert f"Next step: {step}" in said and "re-locate" not in said and "chrome://extensions" not in said


def test_an_open_dialog_is_named_with_the_answers_that_fit_it() -> None:
    from ghostlight_trio.tools.dialog import _dialog_status

    for kind, how in (("alert", "accept."), ("confirm", "accept or dismiss."), ("prompt", "respond with text.")):
        head, _ = _dialog_status({"open": True, "type": kind, "message": "m"}, 7, "ws", "http://a.test")
        assert head.startswith(f"A JavaScript {kind} dialog is open on tab 7; answer it with dialog")
        assert head.split("\n")[0].endswith(f"{how} Its message:")


def test_a_tab_closed_under_the_call_points_at_the_tab_list_not_the_extension() -> None:
    result = failure_result(BrowserError("Tab 4 was closed while navigating", "extension", "tab_closed"))
    assert _text(result).endswith(
        "Next step: the tab is gone; list the workspace's tabs with tabs_context_mcp."
    )
    assert "chrome://extensions" not in _text(result)
