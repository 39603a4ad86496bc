"""narrate's text checks: a caption the page could not show whole is the caller's to fix, and
is refused before anything reaches the page. And its answers: shown only when the page left the
caption intact, and where its words went when the page could not show it."""

from __future__ import annotations

from typing import Any

import pytest

from ghostlight_trio.browser.errors import BrowserError

from .fakes import ScriptedBrowser, handler, tool_call

INTACT = {"removed": 0, "covered": 0, "watchedMs": 1000}


def shown(op: str, args: dict[str, Any], **seen: Any) -> dict[str, Any]:
    if op == "group_caption":
        return {"shown": True, "groupId": 3, "title": f"Ghostlight · A: {args['text']}"}
    page = {"shown": True, "position": "bottom", "durationMs": 5000, "replaced": False}
    return {"value": {**page, **INTACT, **seen}}


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("   \n\t", "narrate needs some text"),
        ("\ufeff ", "narrate needs some text"),
        ("\N{GRINNING FACE}" * 121, "242, and a caption holds 240"),
    ],
)
async def test_blank_or_overlong_text_is_a_tool_error_and_nothing_is_shown(
    text: str, says: str
) -> None:
    browser = ScriptedBrowser(shown)
    result = await handler("narrate", browser)(tool_call("narrate", text=text))
    assert result.kind == "tool_error", result
    assert says in result.content[0].text and "nothing was shown" in result.content[0].text  # type: ignore[union-attr]
    assert browser.seen == []


async def test_text_that_fits_goes_to_the_page_whole() -> None:
    sent: list[str] = []

    def answer(op: str, args: dict[str, Any]) -> dict[str, Any]:
        sent.append(args["args"]["text"] if op == "content" else args["text"])
        return shown(op, args)

    text = "\N{GRINNING FACE}" * 120
    result = await handler("narrate", ScriptedBrowser(answer))(
        tool_call("narrate", text=text)
    )
    assert result.kind == "ok" and sent == [text, text]  # the tab group's title, then the page


def words(result: Any) -> str:
    return str(result.content[0].text)


async def test_an_intact_caption_is_shown_and_its_words_are_in_the_group_title() -> None:
    browser = ScriptedBrowser(shown)
    result = await handler("narrate", browser)(tool_call("narrate", text="Hi"))
    assert browser.seen == ["group_caption", "content narrate"]
    assert result.structured == {
        "shown": True, "position": "bottom", "duration_ms": 5000, "replaced": False,
        "removed": 0, "covered": 0, "watched_ms": 1000, "in_tab_group": True,
    }  # fmt: skip
    assert words(result) == (
        "Narration shown at bottom for 5000ms; the page left it intact for the 1000 ms it was"
        " watched. Its words are in the tab group's title too, where pages cannot reach."
    )


@pytest.mark.parametrize(
    ("seen", "says"),
    [
        ({"removed": 37}, "the page took it out 37 times (each time it was put back on top)"),
        ({"covered": 1}, "the page hid it or drew over it once (each time it was put back on top)"),
        ({"removed": 2, "covered": 3}, "took it out 2 times and hid it or drew over it 3 times"),
    ],
)
async def test_a_caption_the_page_took_out_or_covered_is_not_reported_shown(
    seen: dict[str, int], says: str
) -> None:
    browser = ScriptedBrowser(lambda op, args: shown(op, args, **seen))
    result = await handler("narrate", browser)(tool_call("narrate", text="Hi"))
    assert result.structured is not None and result.structured["shown"] is False
    assert result.structured["removed"] == seen.get("removed", 0)
    assert result.structured["covered"] == seen.get("covered", 0)
    assert words(result).startswith("Narration not shown intact: in its first 1000 ms the page")
    assert says in words(result) and "tab group's title too" in words(result)


async def test_a_page_answer_without_its_counts_is_not_reported_shown() -> None:
    def answer(op: str, args: dict[str, Any]) -> dict[str, Any]:
        if op == "content":
            return {"value": {"shown": True, "position": "top", "durationMs": 5000}}
        return shown(op, args)

    result = await handler("narrate", ScriptedBrowser(answer))(
        tool_call("narrate", text="Hi")
    )
    assert result.structured is not None and result.structured["shown"] is False
    assert words(result).startswith("Narration not shown: the page did not say whether")


async def test_where_the_page_cannot_show_it_the_group_title_still_does() -> None:
    def answer(op: str, args: dict[str, Any]) -> dict[str, Any]:
        if op == "content":
            raise BrowserError("Chrome does not let extensions into this page", "page", "x")
        return shown(op, args)

    result = await handler("narrate", ScriptedBrowser(answer))(
        tool_call("narrate", text="Hi")
    )
    assert result.structured is not None and result.structured["shown"] is False
    assert result.structured["in_tab_group"] is True
    assert words(result) == (
        "Narration not shown: Chrome does not let extensions into this page. Its words are in"
        " the tab group's title instead."
    )


@pytest.mark.parametrize(
    ("group", "says"),
    [
        ({"shown": False, "reason": "the tab is in no tab group"}, "the tab is in no tab group"),
        (BrowserError("Unknown operation: group_caption", "extension", "unknown_op"), "older"),
    ],
)
async def test_where_the_group_title_cannot_carry_it_the_answer_says_why(
    group: Any, says: str
) -> None:
    def answer(op: str, args: dict[str, Any]) -> dict[str, Any]:
        if op != "group_caption":
            return shown(op, args)
        if isinstance(group, Exception):
            raise group
        return dict(group)

    result = await handler("narrate", ScriptedBrowser(answer))(
        tool_call("narrate", text="Hi")
    )
    assert result.structured is not None and result.structured["in_tab_group"] is False
    assert result.structured["shown"] is True  # the page's caption is there all the same
    assert " It is not in the tab group's title: " in words(result) and says in words(result)
