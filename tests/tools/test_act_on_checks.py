"""act_on's checks before it acts, and the words it uses after: an expect selector the page
cannot parse is refused with nothing done, roles match whatever their case, and the texts read
as sentences."""

from __future__ import annotations

from typing import Any

from ghostlight_trio.browser.errors import BrowserError
from ghostlight_trio.tools.act_on import ActOn, _expect_line, _expect_spec
from ghostlight_trio.tools.shared.channel import PageChannel

from .fakes import ScriptedBrowser, handler, tool_call

SAVE = {"ref": "ref_3", "role": "button", "name": "Save", "tag": "button", "x": 5, "y": 5,
        "box": {"x": 0, "y": 0, "width": 10, "height": 10}, "visible": True, "enabled": True,
        "renderSerial": 1, "inViewport": True, "matchRank": 0}  # fmt: skip
PAGE = {"url": "http://a.test/", "title": "A", "renderSerial": 1, "mutations": 0}


def page(op: str, args: dict[str, Any]) -> dict[str, Any]:
    fn = args.get("fn")
    if fn == "wait_probe" and args["args"].get("selector") == "##bad((":
        raise BrowserError(
            'Invalid CSS selector "##bad((": \'##bad((\' is not a valid selector.',
            hop="page", code="bad_selector",
        )  # fmt: skip
    if fn == "wait_probe":
        return {"value": {**PAGE, "count": 1, "visible": 1, "element": SAVE}}
    if fn == "find_text":
        return {"value": {"results": [SAVE]}}
    if fn == "observe" and args["args"].get("ref") == "bad":
        message = '"bad" is not an element ref (expected ref_N)'
        return {"value": {**PAGE, "targetError": {"code": "bad_ref", "message": message}}}
    return {"value": {**PAGE, "target": SAVE}}


async def test_an_invalid_expect_selector_is_refused_before_anything_is_done() -> None:
    browser = ScriptedBrowser(page)
    act_on = handler("act_on", browser)
    result = await act_on(tool_call(
        "act_on", target={"name": "Save"}, action="left_click", expect={"selector": "##bad(("}
    ))  # fmt: skip
    assert result.kind == "tool_error", result
    said = result.content[0].text  # type: ignore[union-attr]
    assert said.startswith('expect selector "##bad((" is not a valid CSS selector (Invalid CSS')
    assert said.endswith("; nothing was done.")
    assert browser.seen == ["content wait_probe"]  # no find, no cue, no click


async def test_blank_expectations_are_refused_before_anything_is_done() -> None:
    for blank in ({"text": "  "}, {"selector": " ", "text": ""}):
        browser = ScriptedBrowser(page)
        act_on = handler("act_on", browser)
        result = await act_on(tool_call(
            "act_on", target={"name": "Save"}, action="left_click", expect=blank
        ))  # fmt: skip
        assert result.kind == "tool_error", result
        assert "exactly one of selector or text" in result.content[0].text  # type: ignore[union-attr]
        assert browser.seen == []


async def test_a_role_matches_whatever_its_case() -> None:
    tool = ActOn(PageChannel(ScriptedBrowser(page)), None, None, None)  # type: ignore[arg-type]
    call = tool_call("act_on")
    for role in ("BUTTON", "Button", " button "):
        element, assurance = await tool._resolve(
            call, 7, {"name": "Save", "role": role}, "name", "left_click"
        )
        assert element["ref"] == "ref_3" and assurance == "semantic"


async def test_a_page_message_without_a_full_stop_still_ends_its_sentence() -> None:
    act_on = handler("act_on", ScriptedBrowser(page))
    result = await act_on(tool_call("act_on", target={"ref": "bad"}, action="left_click"))
    assert result.kind == "tool_error"
    said = result.content[0].text  # type: ignore[union-attr]
    assert '"bad" is not an element ref (expected ref_N). Next step: ' in said


async def test_an_expectation_not_met_reads_as_a_sentence() -> None:
    wait_for = handler("wait_for", ScriptedBrowser(page))
    expect = _expect_spec({"expect": {"selector": ".spinner", "state": "gone", "timeout_ms": 0}})
    assert expect is not None
    waited = await wait_for(tool_call("wait_for", **expect))
    line = _expect_line(expect, waited, met=False)
    assert line.startswith(
        'Expectation NOT met within 0 ms: expected that no element matching selector ".spinner"'
        " would be visible. Last observation: 1 matching element(s), 1 visible."
    ), line
    assert "did not hold" not in line


async def test_an_expectation_met_says_after_how_long(autojump_clock: Any) -> None:
    wait_for = handler("wait_for", ScriptedBrowser(page))
    expect = _expect_spec({"expect": {"text": "Saved!"}})
    assert expect is not None
    waited = await wait_for(tool_call("wait_for", **expect))
    line = _expect_line(expect, waited, met=True)
    assert line.startswith('Expectation met after 0 ms: an element matching text "Saved!" is visible.')
    assert "ref_3" in line  # the element wait_for saw, as it showed it


async def test_a_target_that_fits_but_is_disabled_is_said_to_be_disabled() -> None:
    def disabled_save(op: str, args: dict[str, Any]) -> dict[str, Any]:
        if args.get("fn") == "find_text":
            return {"value": {"results": [{**SAVE, "enabled": False}]}}
        return page(op, args)

    browser = ScriptedBrowser(disabled_save)
    act_on = handler("act_on", browser)
    result = await act_on(tool_call("act_on", target={"name": "Save"}, action="left_click"))
    assert result.kind == "tool_error", result
    said = result.content[0].text  # type: ignore[union-attr]
    assert "blocked before action: target_missing" in said
    assert "ref_3 fits but is disabled (the page has not enabled it yet)." in said
    assert not any("cdp" in line for line in browser.seen)  # nothing clicked
