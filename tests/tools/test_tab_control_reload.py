"""tab_control reload says the tab reloaded only when a reloaded page loaded: a reload no load
followed (a slow server, or a page whose own script holds the tab) is said as asked for."""

from __future__ import annotations

from typing import Any

from .fakes import ScriptedBrowser, handler, tool_call


def _tab(loaded: bool) -> Any:
    def answer(op: str, args: dict[str, Any]) -> dict[str, Any]:
        if op == "tab_info":
            return {"tabId": 7, "url": "http://a.test/", "title": "A"}
        if op == "tab_control":
            return {"action": "reload", "tabId": 7, "loaded": loaded, "url": "http://a.test/", "title": "A"}
        return {"value": {"renderSerial": 1}}

    return handler("tab_control", ScriptedBrowser(answer))


def _said(result: Any) -> str:
    return "\n".join(block.text for block in result.content)


async def test_a_reload_that_loaded_is_said_as_done() -> None:
    done = await _tab(True)(tool_call("tab_control", action="reload"))
    receipt = done.structured["interactionReceipt"]
    assert receipt["observedAfter"].get("tabReloaded") is True and receipt["blockers"] == []
    assert _said(done).startswith("Reloaded tab 7.")


async def test_a_reload_no_load_followed_is_said_as_asked_not_done() -> None:
    asked = await _tab(False)(tool_call("tab_control", action="reload"))
    receipt = asked.structured["interactionReceipt"]
    assert "tabReloaded" not in receipt["observedAfter"]
    assert [b["kind"] for b in receipt["blockers"]] == ["still_loading"]
    assert _said(asked).startswith("Asked tab 7 to reload; no new page finished loading within")
    assert "close it and open a new one" in receipt["blockers"][0]["nextStep"]


async def test_only_a_reload_s_wait_is_one_a_cancel_may_end() -> None:
    """The reload's rest is a wait for the page, so a cancelled call may stop waiting; a focus
    is an effect of its own and always drains."""

    def answer(op: str, args: dict[str, Any]) -> dict[str, Any]:
        if op == "tab_control":
            return {"action": args["action"], "tabId": 7, "loaded": True, "url": "http://a.test/"}
        if op == "tab_info":
            return {"tabId": 7, "url": "http://a.test/", "title": "A"}
        return {"value": {"renderSerial": 1}}

    browser = ScriptedBrowser(answer)
    tab_control = handler("tab_control", browser)
    await tab_control(tool_call("tab_control", action="focus"))
    assert browser.stoppable == []
    await tab_control(tool_call("tab_control", action="reload"))
    assert browser.stoppable == ["tab_control"]
