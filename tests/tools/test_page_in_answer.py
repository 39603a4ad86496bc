"""read_page and find name the page they read from their own answer: one trip to the page.

The content script puts the page it read (address, title, ref serial) in the answer of
``read_page`` and ``find_text``; an extension from before that answers without it, and then the
page is asked for it after the read (``ping``), as before.
"""

from __future__ import annotations

from typing import Any

import pytest

from .fakes import ScriptedBrowser, handler, tool_call

PAGE = {"url": "http://127.0.0.1:9/shop", "title": "Shop", "renderSerial": 12}
PINGED = {"url": "http://127.0.0.1:9/old", "title": "Old", "renderSerial": 3}
READS = pytest.mark.parametrize(
    ("tool", "arguments", "fn"),
    [("read_page", {}, "read_page"), ("find", {"query": "Buy"}, "find_text")],
)
"""Each tool, its arguments, and the content mechanism it reads with."""


def browser_for(*, carries_page: bool, pending: str | None = None) -> ScriptedBrowser:
    def answer(op: str, args: dict[str, Any]) -> dict[str, Any]:
        assert op == "content", op
        fn = args["fn"]
        if fn == "ping":
            value: dict[str, Any] = dict(PINGED)
        elif fn == "read_page":
            value = {"text": 'button "Buy" [ref_1]', "renderSerial": 12}
        else:
            assert fn == "find_text", fn
            value = {"results": [{"ref": "ref_1", "role": "button", "name": "Buy"}]}
        if carries_page and fn != "ping":
            value["page"] = dict(PAGE)
        reply: dict[str, Any] = {"value": value}
        if pending:
            reply["pendingUrl"] = pending
        return reply

    return ScriptedBrowser(answer)


@READS
@pytest.mark.parametrize("carries_page", [True, False])
async def test_the_page_comes_with_the_answer_or_is_asked_after_the_read(
    tool: str, arguments: dict[str, Any], fn: str, carries_page: bool
) -> None:
    """From the answer itself (no ping), or, from an extension whose answers lack it, asked
    for after the read."""
    browser = browser_for(carries_page=carries_page)
    result = await handler(tool, browser)(tool_call(tool, **arguments))
    pinged = [] if carries_page else ["content ping"]
    assert browser.seen == [f"content {fn}", *pinged]
    expected = PAGE if carries_page else PINGED
    page = result.structured["page"]
    assert (page["url"], page["title"]) == (expected["url"], expected["title"])
    if carries_page:  # read_page's serial is its tree's either way; find's is the page's
        assert page["renderSerial"] == PAGE["renderSerial"]


async def test_a_tab_on_its_way_elsewhere_says_so_from_the_answer_alone() -> None:
    browser = browser_for(carries_page=True, pending="http://127.0.0.1:9/next")
    result = await handler("read_page", browser)(tool_call("read_page"))
    assert browser.seen == ["content read_page"]
    assert result.structured["pendingUrl"] == "http://127.0.0.1:9/next"
    assert "The tab is navigating to another page" in result.content[0].text
