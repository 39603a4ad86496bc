"""Input events go to the browser in runs (one ``cdp_sequence`` request each), and what a call
stopped part way reports is exactly what the browser says was answered."""

from __future__ import annotations

from typing import Any

import pytest
from browser.session_driver import text  # tests/ is on sys.path (rootdir packages)

from ghostlight_trio.browser.errors import BrowserError
from ghostlight_trio.tools.computer.input import RUN_STEPS

from .fakes import ScriptedBrowser, handler, tool_call

OBSERVED = {
    "url": "http://a.test/", "title": "A", "renderSerial": 1, "mutations": 0,
    "focused": {"ref": "ref_1", "role": "textbox", "name": "Field"},
}  # fmt: skip


def _typing_browser(*, fail_at: int | None = None, sequences: bool = True) -> ScriptedBrowser:
    """Answers every key event; the ``fail_at``-th key-down (0-based) fails in the browser.
    Without ``sequences`` it is an extension from before ``cdp_sequence`` (and ``observed``)."""
    downs = 0

    def answer(op: str, args: dict[str, Any]) -> dict[str, Any]:
        nonlocal downs
        if op == "content":
            return {"value": OBSERVED}
        if op == "tab_info":
            return {"tabId": 7, "url": OBSERVED["url"], "title": "A"}
        if args.get("params", {}).get("type") == "keyDown":
            if downs == fail_at:
                raise BrowserError("Input.dispatchKeyEvent failed: boom", "cdp", "cdp_failed")
            downs += 1
        return {"result": {}}

    browser = ScriptedBrowser(answer)
    if not sequences:
        plain = browser.request

        async def request(workspace_id: Any, op: str, args: dict[str, Any], *, timeout: float) -> Any:  # noqa: ASYNC109
            if op in ("cdp_sequence", "observed"):
                browser.seen.append(op)
                raise BrowserError(f"Unknown operation: {op}", "extension", "unknown_op")
            return await plain(workspace_id, op, args, timeout=timeout)

        browser.request = request  # type: ignore[method-assign]
    return browser


def _requests(browser: ScriptedBrowser, op: str) -> int:
    return sum(1 for line in browser.seen if line == op or line.startswith(f"{op} "))


async def test_typing_goes_out_in_runs_not_a_request_per_key() -> None:
    browser = _typing_browser()
    computer = handler("computer", browser)
    call = tool_call("computer", action="type", text="x" * 100)
    result = await computer(call)
    assert result.kind == "ok", text(result)
    keys = _requests(browser, "cdp Input.dispatchKeyEvent")
    assert keys == 200  # every key went down and up, in order
    # 200 events in runs of RUN_STEPS: a handful of requests, with a checkpoint before each.
    runs = -(-200 // RUN_STEPS)
    assert browser.sequences == runs
    assert call.effects.checkpoints >= runs  # type: ignore[attr-defined]
    assert call.effects.done == "typed 100 of 100 characters"  # type: ignore[attr-defined]


@pytest.mark.parametrize("sequences", [True, False], ids=["runs", "older extension"])
async def test_a_failure_part_way_reports_exactly_the_keys_the_browser_answered(
    sequences: bool,
) -> None:
    browser = _typing_browser(fail_at=45, sequences=sequences)
    computer = handler("computer", browser)
    call = tool_call("computer", action="type", text="y" * 100)
    result = await computer(call)
    assert result.kind == "tool_error"
    assert "boom" in text(result)
    # 45 keys went down and up before the 46th key-down failed.
    assert call.effects.done == "typed 45 of 100 characters"  # type: ignore[attr-defined]
    assert _requests(browser, "cdp Input.dispatchKeyEvent") == 91
    # An extension without cdp_sequence refuses it unrun, once; then keys go one by one.
    assert browser.seen.count("cdp_sequence") == (0 if sequences else 1)
    assert browser.sequences == (2 if sequences else 0)


async def test_a_click_is_one_request() -> None:
    browser = _typing_browser()
    computer = handler("computer", browser)
    call = tool_call("computer", action="left_click", coordinate=[10, 10])
    result = await computer(call)
    assert result.kind == "ok", text(result)
    assert _requests(browser, "cdp Input.dispatchMouseEvent") == 3  # move, press, release
    assert browser.sequences == 1


async def test_points_no_page_has_are_refused_before_anything_is_sent() -> None:
    def answer(op: str, args: dict[str, Any]) -> dict[str, Any]:
        if op == "content":
            return {"value": {**OBSERVED, "viewport": {"width": 800, "height": 600}}}
        return {"result": {}}

    browser = ScriptedBrowser(answer)
    computer = handler("computer", browser)
    far = await computer(tool_call("computer", action="left_click", coordinate=[1e308, 5]))
    assert far.kind == "tool_error" and "(1e+308, 5) is far outside any page" in text(far), text(far)
    off = await computer(tool_call(
        "computer", action="left_click_drag", start_coordinate=[-20, -80], coordinate=[5000, 5000]
    ))  # fmt: skip
    assert off.kind == "tool_error" and "leaves the visible page" in text(off), text(off)
    assert not any(line.startswith("cdp") for line in browser.seen)
