"""narrate's text checks: a caption the page could not show whole is the caller's to fix, and
is refused before anything reaches the page."""

from __future__ import annotations

from typing import Any

import pytest

from ghostlight_trio.tools.narrate import narrate_handlers

from .fakes import ScriptedBrowser, tool_call


def shown(op: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"value": {"shown": True, "position": "bottom", "durationMs": 5000, "replaced": False}}


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
    result = await narrate_handlers(None, browser)["narrate"](tool_call("narrate", text=text))
    assert result.kind == "tool_error", result
    assert says in result.content[0].text and "nothing was shown" in result.content[0].text  # type: ignore[union-attr]
    assert browser.seen == []


async def test_text_that_fits_goes_to_the_page_whole() -> None:
    sent: list[str] = []

    def answer(op: str, args: dict[str, Any]) -> dict[str, Any]:
        sent.append(args["args"]["text"])
        return shown(op, args)

    text = "\N{GRINNING FACE}" * 120
    result = await narrate_handlers(None, ScriptedBrowser(answer))["narrate"](
        tool_call("narrate", text=text)
    )
    assert result.kind == "ok" and sent == [text]
