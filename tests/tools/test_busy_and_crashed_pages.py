"""A busy page, a crashed page and a tab that closed: each worded as what it is, with a next
step that fits it, and no native Chrome tab id in the prose."""

from __future__ import annotations

from typing import Any

import pytest
import trio

from ghostlight_trio.browser.errors import BrowserError, OutcomeUnknown
from ghostlight_trio.browser.failures import failure_result
from ghostlight_trio.browser.tabids import rewrite_text
from ghostlight_trio.tools.shared.channel import PageChannel
from ghostlight_trio.workspace.tab_ids import compose_tab_id as compose

from .fakes import ScriptedBrowser, handler, tool_call


def _text(result: Any) -> str:
    return result.content[0].text


def test_a_crashed_page_is_named_and_the_next_step_is_a_reload() -> None:
    said = failure_result(
        BrowserError(
            "The page in tab 7 crashed (its renderer process is gone), so there is no page to"
            " run anything on; nothing was sent",
            "page",
            "page_crashed",
        )
    )
    text = _text(said)
    assert said.kind == "tool_error"
    assert text.startswith("[hop: page] The page in tab 7 crashed")
    assert "Next step: reload the tab with tab_control (action reload)" in text
    assert "does not let extensions" not in text and "chrome://extensions" not in text
    assert "http or https" not in text and "re-locate" not in text
    unloaded = _text(failure_result(BrowserError("The page in tab 7 is not running", "page", "page_unloaded")))
    assert unloaded.endswith("Next step: reload the tab with tab_control (action reload) to load its page again.")


def test_a_request_under_way_when_its_page_crashed_has_an_unknown_outcome() -> None:
    crashed = BrowserError(
        "The page in tab 7 crashed (its renderer process is gone) while Runtime.evaluate was"
        " under way, so no answer came; whether it took effect before the crash is not known",
        "page",
        "page_crashed",
        delivered=True,
    )
    said = failure_result(crashed, reaches_page=True)
    assert said.kind == "outcome_unknown"
    assert _text(said).startswith("[hop: page] The page in tab 7 crashed")
    assert "Next step: reload the tab with tab_control (action reload)" in _text(said)


async def test_a_read_under_way_when_its_page_crashed_is_a_plain_failure() -> None:
    crashed = BrowserError("The page in tab 7 crashed while …", "page", "page_crashed", delivered=True)
    browser, _ = _waiting(crashed)
    channel = PageChannel(browser)
    with pytest.raises(BrowserError) as raised:
        await channel.content(tool_call("get_page_text", tabId=7), 7, "text", read=True)
    assert not raised.value.delivered
    assert failure_result(raised.value).kind == "tool_error"


def test_a_busy_page_that_did_not_answer_is_told_to_wait_or_reload_not_to_re_locate() -> None:
    text = _text(failure_result(BrowserError("The page did not answer within 15000 ms", "page", "page_timeout")))
    step = text.split("Next step: ", 1)[1]
    assert step.startswith("the page is busy (most likely running a script of its own)")
    assert "wait a moment and call again, or reload the tab with tab_control (action reload)" in step
    assert "may still take effect once it is free" in step  # a change handed to it is not undone
    assert "re-locate" not in text and "read_page" not in text


def test_an_unanswered_read_points_at_the_busy_page_before_the_extension() -> None:
    text = _text(
        failure_result(
            BrowserError(
                "The browser did not answer the read-only cdp request in time; nothing was changed"
                " (The browser did not answer within 20s)",
                "extension",
                "read_timeout",
            )
        )
    )
    step = text.split("Next step: ", 1)[1]
    assert step.startswith("the tab's page is most likely busy")
    assert step.index("reload the tab with tab_control") < step.index("chrome://extensions")
    assert "Only if no tab answers at all, check the Ghostlight extension" in step


def test_an_action_that_timed_out_stays_unknown_and_names_the_busy_page_as_the_usual_cause() -> None:
    unknown = failure_result(OutcomeUnknown("The browser did not answer within 20.15s"), reaches_page=True)
    text = _text(unknown)
    assert unknown.kind == "outcome_unknown"
    assert "The browser action may or may not have happened." in text
    assert "the usual cause is the tab's page being busy (a script of its own" in text
    assert "Next step: check the tab with tabs_context_mcp before retrying." in text
    assert "chrome://extensions" not in text
    gone = _text(failure_result(OutcomeUnknown("Browser extension disconnected before responding"), reaches_page=True))
    assert "busy" not in gone and "may or may not have happened" in gone
    # A request the browser alone carries out (creating a tab) is never blamed on a page.
    tab_less = _text(failure_result(OutcomeUnknown("The browser did not answer within 10s")))
    assert "busy" not in tab_less and "may or may not have happened" in tab_less


def test_chromes_own_tab_id_phrasings_are_made_composite() -> None:
    slot, native, tab = 3, 754994817, 5
    said = rewrite_text(
        f"Could not attach the debugger to tab {tab}: No tab with given id {native}.", slot
    )
    assert said == (
        f"Could not attach the debugger to tab {compose(slot, tab)}: No tab with given id"
        f" {compose(slot, native)}."
    )
    for phrase in (
        "No tab with id: {}.",
        "Debugger is not attached to the tab with id: {}.",
        "Another debugger is already attached to the tab with id: {}.",
        "Tab {} closed while Runtime.evaluate was under way",
        "tabId {}",
        "tabId={}",
    ):
        assert rewrite_text(phrase.format(native), slot) == phrase.format(compose(slot, native))
    assert str(native) not in rewrite_text(f"No tab with given id {native}", slot)


def _waiting(error: BrowserError) -> tuple[ScriptedBrowser, Any]:
    def answer(op: str, args: dict[str, Any]) -> dict[str, Any]:
        raise error

    browser = ScriptedBrowser(answer)
    return browser, handler("wait_for", browser)


async def test_wait_for_on_a_busy_page_says_how_long_the_call_waited(autojump_clock: Any) -> None:
    browser, wait_for = _waiting(
        BrowserError("The page did not answer within 773 ms", "page", "page_timeout")
    )
    result = await wait_for(tool_call("wait_for", selector="#name", timeout_ms=5000))
    text = _text(result)
    assert result.kind == "tool_error"
    assert "773 ms" not in text
    waited = int(text.split("did not answer during the ", 1)[1].split(" ms", 1)[0])
    assert waited >= 5000
    assert "this call waited (timeout_ms 5000), so the condition could not be checked" in text
    assert text.startswith("[hop: page] The page did not answer during the")
    assert "Next step: the page is busy" in text
    assert len(browser.seen) > 1  # it kept asking until its own time was up


async def test_wait_for_on_a_crashed_page_answers_at_the_first_probe(autojump_clock: Any) -> None:
    browser, wait_for = _waiting(
        BrowserError("The page in tab 7 crashed; nothing was sent", "page", "page_crashed")
    )
    result = await wait_for(tool_call("wait_for", selector="#name", timeout_ms=20000))
    assert browser.seen == ["content wait_probe"]
    assert "Next step: reload the tab with tab_control (action reload)" in _text(result)


async def test_a_read_of_a_tab_on_its_way_to_a_slow_page_says_so_not_busy_page() -> None:
    def answer(op: str, args: dict[str, Any]) -> dict[str, Any]:
        if op == "tab_info":
            return {"tabId": 7, "url": "http://a.test/", "pendingUrl": "http://a.test/slow"}
        raise BrowserError("The page did not answer within 15000 ms", "page", "page_timeout")

    channel = PageChannel(ScriptedBrowser(answer))
    with pytest.raises(BrowserError) as raised:
        await channel.content(tool_call("get_page_text", tabId=7), 7, "text", read=True)
    assert raised.value.code == "navigation_pending"
    said = _text(failure_result(raised.value, reaches_page=True))
    assert "Tab 7 is navigating to http://a.test/slow, which has not loaded yet" in said
    assert "Next step: wait for the new page with wait_for (state settled)" in said
    assert "busy" not in said


async def test_a_read_of_a_tab_going_nowhere_keeps_its_busy_page_reason() -> None:
    def answer(op: str, args: dict[str, Any]) -> dict[str, Any]:
        if op == "tab_info":
            return {"tabId": 7, "url": "http://a.test/"}
        raise BrowserError("The page did not answer within 15000 ms", "page", "page_timeout")

    channel = PageChannel(ScriptedBrowser(answer))
    with pytest.raises(BrowserError) as raised:
        await channel.content(tool_call("get_page_text", tabId=7), 7, "text", read=True)
    assert raised.value.code == "page_timeout"


@pytest.mark.parametrize(
    ("status", "code"), [("loading", "navigation_pending"), ("complete", "content_unavailable")]
)
async def test_a_read_of_an_unreadable_page_says_whether_another_is_loading(
    status: str, code: str
) -> None:
    """A blank tab a script has sent elsewhere (loading, before Chrome names where) is on its
    way; one at rest stays what it is."""

    def answer(op: str, args: dict[str, Any]) -> dict[str, Any]:
        if op == "tab_info":
            return {"tabId": 7, "url": "about:blank", "status": status}
        raise BrowserError("Chrome does not let extensions into this page", "page", "content_unavailable")

    channel = PageChannel(ScriptedBrowser(answer))
    with pytest.raises(BrowserError) as raised:
        await channel.content(tool_call("get_page_text", tabId=7), 7, "text", read=True)
    assert raised.value.code == code
    if code == "navigation_pending":
        assert "Tab 7 is loading another page, which has not loaded yet" in raised.value.message


def _blank_then(loading_from: float | None, readable_from: float | None) -> Any:
    """wait_for on a tab showing a page no extension may read (about:blank) that starts loading
    at ``loading_from`` and shows a readable page holding the element at ``readable_from``
    (Trio seconds; None: never)."""

    def answer(op: str, args: dict[str, Any]) -> dict[str, Any]:
        now = trio.current_time()
        if op == "tab_info":
            loading = loading_from is not None and now >= loading_from
            return {"tabId": 7, "url": "about:blank", "status": "loading" if loading else "complete"}
        if readable_from is not None and now >= readable_from:
            return {"value": {"count": 1, "visible": 1}}
        raise BrowserError("Chrome does not let extensions into this page", "page", "content_unavailable")

    return handler("wait_for", ScriptedBrowser(answer))


async def test_wait_for_gives_a_page_just_asked_to_navigate_time_to_start(autojump_clock: Any) -> None:
    """A script has just asked the blank tab to go to a page, and the tab shows nothing of it
    yet: the first unreadable probe is not taken as final."""
    wait_for = _blank_then(loading_from=0.5, readable_from=2.0)
    found = await wait_for(tool_call("wait_for", selector="#name", state="present", timeout_ms=8000))
    assert found.kind == "ok" and found.structured["found"] is True, _text(found)


async def test_wait_for_on_a_page_that_stays_unreadable_says_so_well_before_its_timeout(
    autojump_clock: Any,
) -> None:
    wait_for = _blank_then(loading_from=None, readable_from=None)
    began = trio.current_time()
    refused = await wait_for(tool_call("wait_for", selector="#name", timeout_ms=20000))
    assert refused.kind == "tool_error" and "does not let extensions" in _text(refused)
    assert 1.0 <= trio.current_time() - began < 2.0  # a second at rest, not the 20 s asked
