"""A read or an action that meets the browser's error page says what failed there, in the words
navigate uses, when the extension could read it; otherwise the general advice stands."""

from __future__ import annotations

from typing import Any

from ghostlight_trio.browser.errors import BrowserError
from ghostlight_trio.tools.shared.guard import guarded

from .fakes import tool_call

MESSAGE = "The tab shows the browser's error page (the page did not load), so there is no page content to read"


def failing_with(error_page: dict[str, Any] | None):
    async def body(call, tab):
        raise BrowserError(MESSAGE, "page", "error_page", error_page=error_page)

    return guarded(body)


def said(result) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)


async def test_a_known_cause_is_named_with_its_next_step() -> None:
    result = await failing_with({"netError": "ERR_NAME_NOT_RESOLVED"})(tool_call("get_page_text"))
    assert result.kind == "tool_error"
    assert said(result) == (
        "[hop: page] The tab shows the browser's error page (ERR_NAME_NOT_RESOLVED): the host"
        " name was not found (no such address in DNS), so there is no page content to read."
        " Next step: check the host name in the URL for a typo; this address fails the same way"
        " every time."
    )
    assert result.structured == {"netError": "ERR_NAME_NOT_RESOLVED"}
    http = await failing_with({"netError": "ERR_HTTP_RESPONSE_CODE_FAILURE", "httpStatus": 503})(
        tool_call("read_page")
    )
    assert "the server answered HTTP 503 (Service Unavailable) with no page" in said(http)
    assert http.structured == {"netError": "ERR_HTTP_RESPONSE_CODE_FAILURE", "httpStatus": 503}


async def test_no_cause_or_an_untrusted_one_keeps_the_general_advice() -> None:
    for shown in (None, {}, {"netError": "<b>not a code</b>"}, {"netError": 7}):
        result = await failing_with(shown)(tool_call("find", query="x"))
        assert result.kind == "tool_error"
        assert said(result).startswith(f"[hop: page] {MESSAGE}. Next step: a screenshot shows"), said(result)
        assert "not a code" not in said(result)
