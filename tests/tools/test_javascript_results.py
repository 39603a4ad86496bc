"""javascript_tool's own words for what Chrome answers tersely: a script stopped at its time
bound, and an error too long to repeat whole."""

from __future__ import annotations

from typing import Any

import trio
from browser.session_driver import text  # tests/ is on sys.path (rootdir packages)

from ghostlight_trio.browser.errors import BrowserError
from ghostlight_trio.tools.javascript_tool import JS_RESULT_LIMIT, JS_TIMEOUT_MS

from .fakes import ScriptedBrowser, handler, tool_call

PAGE = {"url": "http://a.test/", "title": "A", "renderSerial": 1}


async def test_a_script_stopped_at_its_time_bound_says_so(autojump_clock: Any) -> None:
    class Endless(ScriptedBrowser):
        async def request(self, workspace_id: Any, op: str, args: dict[str, Any], *, timeout: float) -> Any:  # noqa: ASYNC109
            if op == "cdp":
                await trio.sleep(JS_TIMEOUT_MS / 1000)
                raise BrowserError(
                    'Runtime.evaluate failed: {"code":-32603,"message":"Internal error"}', "cdp", "cdp_failed"
                )
            return {"value": PAGE}

    js = handler("javascript_tool", Endless(lambda op, args: {}))
    result = await js(tool_call("javascript_tool", action="javascript_exec", text="while (true) {}"))
    assert result.kind == "tool_error"
    assert text(result).startswith("The script ran for 30 s without finishing and was stopped there")
    assert "Internal error" not in text(result)


async def test_an_error_is_cut_like_a_value() -> None:
    def answer(op: str, args: dict[str, Any]) -> dict[str, Any]:
        if op == "cdp":
            name = "x" * 200_000
            details = {"exception": {"description": f"ReferenceError: {name} is not defined"}}
            return {"result": {"exceptionDetails": details}}
        return {"value": PAGE, "tabId": 7, "url": PAGE["url"], "title": "A"}

    js = handler("javascript_tool", ScriptedBrowser(answer))
    result = await js(tool_call("javascript_tool", action="javascript_exec", text="x"))
    assert result.kind == "tool_error" and "ReferenceError" in text(result)
    assert "Error: ReferenceError" not in text(result)  # its name, said once
    assert len(text(result)) < JS_RESULT_LIMIT + 1_000


async def test_a_script_that_closed_its_tab_reports_its_value_and_the_closing() -> None:
    def answer(op: str, args: dict[str, Any]) -> dict[str, Any]:
        if op == "cdp":
            return {"result": {"result": {"type": "number", "value": 5}}}
        raise BrowserError("No tab with id 7 (it was closed or never existed)", code="tab_not_found")

    js = handler("javascript_tool", ScriptedBrowser(answer))
    result = await js(tool_call("javascript_tool", action="javascript_exec", text="window.close(); 5"))
    assert result.kind == "ok"
    assert "UNTRUSTED ---\n5\n--- END" in text(result)
    assert text(result).endswith("The script ran; its tab is gone now (it closed).")


def test_extension_prose_naming_a_tab_with_id_is_rewritten_to_the_composite_id() -> None:
    from ghostlight_trio.browser.tabids import rewrite_text

    assert rewrite_text("No tab with id 5 (it was closed)", 1) == "No tab with id 4294967301 (it was closed)"
