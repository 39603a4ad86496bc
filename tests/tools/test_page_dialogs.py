"""How tools word a JavaScript dialog that stops them, over a scripted browser (no socket).

Each reply is what the extension sends: ``{"dialog": ...}`` for a request a dialog answered once
delivered, a ``dialog_open`` error for one refused before anything was sent.
"""

from __future__ import annotations

from typing import Any

from browser.session_driver import text  # tests/ is on sys.path (rootdir packages)

from ghostlight_trio.browser.errors import BrowserError

from .fakes import ScriptedBrowser, handler, tool_call

ALERT = {"type": "alert", "message": "stop", "defaultPrompt": "", "url": "http://a.test/"}
UNLOAD = {"type": "beforeunload", "message": "", "defaultPrompt": "", "url": "http://a.test/"}
OBSERVED = {"url": "http://a.test/", "title": "A", "renderSerial": 1, "mutations": 0}


def refused(dialog: dict[str, Any]) -> BrowserError:
    return BrowserError("A JavaScript dialog is open", "page", "dialog_open", dialog)


async def test_a_drag_cut_short_by_a_dialog_sends_no_release_to_the_paused_page() -> None:
    moves = 0

    def answer(op: str, args: dict[str, Any]) -> dict[str, Any]:
        nonlocal moves
        if op == "content":
            return {"value": OBSERVED}
        if args["params"].get("type") == "mouseMoved":
            moves += 1
            if moves == 3:  # the second step of the drag: a dragover handler calls alert()
                return {"dialog": ALERT}
        return {"result": {}}

    browser = ScriptedBrowser(answer)
    computer = handler("computer", browser)
    result = await computer(
        tool_call(
            "computer", action="left_click_drag", start_coordinate=[10, 10], coordinate=[90, 10]
        )
    )
    assert result.kind == "ok"
    assert text(result).startswith(
        "Dragged (10, 10) -> (90, 10) was cut short: a JavaScript alert dialog opened on tab 7"
        " before the input finished, so the rest of it was not sent."
    )
    assert "call dialog with tabId 7 and action accept" in text(result)
    assert browser.seen[-1] == "cdp Input.dispatchMouseEvent mouseMoved"
    assert not any("mouseReleased" in line for line in browser.seen)


async def test_a_scroll_reports_a_dialog_that_opened_after_its_wheel() -> None:
    def answer(op: str, args: dict[str, Any]) -> dict[str, Any]:
        if args.get("method") == "Runtime.evaluate":
            if any("mouseWheel" in line for line in browser.seen):
                raise refused(ALERT)
            return {"result": {"result": {"value": {"wx": 0, "wy": 0, "ex": 0, "ey": 0}}}}
        return {"result": {}}

    browser = ScriptedBrowser(answer)
    computer = handler("computer", browser)
    result = await computer(tool_call("computer", action="scroll", coordinate=[5, 5]))
    assert result.kind == "ok"
    assert text(result).startswith(
        "Scrolled down 3 tick(s). Then a JavaScript alert dialog opened on tab 7 and is still open."
    )
    assert result.structured is not None and result.structured["dialog"]["message"] == "stop"


async def test_form_input_whose_change_handler_opens_a_dialog_says_the_value_went_in() -> None:
    def answer(op: str, args: dict[str, Any]) -> dict[str, Any]:
        if args.get("fn") == "form_input":
            return {"value": None, "dialog": {**ALERT, "type": "confirm", "message": "Sure?"}}
        return {"value": OBSERVED}

    browser = ScriptedBrowser(answer)
    form_input = handler("form_input", browser)
    result = await form_input(tool_call("form_input", ref="ref_2", value=True))
    assert result.kind == "ok"
    assert text(result).startswith(
        "Set ref_2: the value was delivered and a JavaScript confirm dialog opened on tab 7"
    )
    assert browser.seen == ["content observe", "content form_input"]


async def test_navigate_held_by_beforeunload_says_where_the_tab_is_and_what_to_answer() -> None:
    def answer(op: str, args: dict[str, Any]) -> dict[str, Any]:
        return {"tabId": 7, "url": "http://a.test/", "title": "A", "loaded": False, "dialog": UNLOAD}

    navigate = handler("navigate", ScriptedBrowser(answer))  # type: ignore[arg-type]
    result = await navigate(tool_call("navigate", url="http://b.test/"))
    assert result.kind == "ok"
    assert text(result).startswith(
        "The navigation of tab 7 to http://b.test/ started, but a beforeunload dialog (the page"
        " asks whether to leave it) opened; the tab still shows the page it had (named at the"
        " end) and the navigation waits for the answer. Next step: call dialog with tabId 7"
        " and action accept to leave the page, or dismiss to stay."
    )
    # Where the tab is: the page's own words, inside the fence, last.
    assert text(result).endswith(
        '\n{"url": "http://a.test/", "title": "A"}\n--- END GHOSTLIGHT PAGE CONTENT'
        f" {result.structured['provenance']['sessionNonce']} ---"
    )
    assert result.structured is not None
    assert result.structured["url"] == "http://a.test/"
    assert result.structured["dialog"] == {"open": True, "type": "beforeunload", "message": ""}


async def test_form_input_sets_a_value_once_even_when_the_page_answers_nothing() -> None:
    """An empty answer to form_input is a broken one, said so: never a cue to set the value a
    second time."""

    def answer(op: str, args: dict[str, Any]) -> dict[str, Any]:
        if args.get("fn") == "form_input":
            return {"value": None}
        return {"value": OBSERVED}

    browser = ScriptedBrowser(answer)
    result = await handler("form_input", browser)(tool_call("form_input", ref="ref_2", value="x"))
    assert browser.seen.count("content form_input") == 1, browser.seen
    assert result.kind != "ok" and "named no field" in text(result), text(result)


async def test_form_input_on_an_older_extension_meets_an_open_dialog_before_sending() -> None:
    """An extension without ``observed``: the page is observed on its own first, and a dialog
    open then is said to have stopped the call before any of the value went out."""

    def answer(op: str, args: dict[str, Any]) -> dict[str, Any]:
        if op == "observed":
            raise BrowserError("Unknown operation: observed", "extension", "unknown_op")
        raise refused(ALERT)

    browser = ScriptedBrowser(answer)
    result = await handler("form_input", browser)(tool_call("form_input", ref="ref_2", value="x"))
    assert "the value was delivered" not in text(result), text(result)
    assert "content form_input" not in browser.seen, browser.seen
    assert result.structured["dialog"]["message"] == "stop", text(result)  # type: ignore[index]
