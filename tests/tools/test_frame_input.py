"""Input that would land in an embedded frame of a site the call may not act on is refused
before anything is sent: the call was judged by its page's host, not by that frame's."""

from __future__ import annotations

from typing import Any

from browser.session_driver import text  # tests/ is on sys.path (rootdir packages)

from .fakes import ScriptedBrowser, handler, tool_call

BANK = "http://bank.test/pay"


def _page(seen: list[str], *, frame_at: str = "", focus_frame: str = "") -> ScriptedBrowser:
    def answer(op: str, args: dict[str, Any]) -> dict[str, Any]:
        seen.append(op if op != "content" else args["fn"])
        if op == "content" and args["fn"] == "observe":
            value: dict[str, Any] = {"url": "http://a.test/", "title": "A", "renderSerial": 1,
                                     "viewport": {"width": 800, "height": 600}}  # fmt: skip
            if frame_at:
                value["frameAt"] = frame_at
            if focus_frame:
                value["focusFrame"] = focus_frame
            return {"value": value}
        return {"value": {"url": "http://a.test/", "title": "A", "renderSerial": 1}}

    return ScriptedBrowser(answer)


async def test_a_click_into_a_frame_of_a_denied_site_sends_nothing() -> None:
    seen: list[str] = []
    computer = handler("computer", _page(seen, frame_at=BANK))
    click = tool_call("computer", action="left_click", coordinate=[10, 10])
    click.effects.denied = {BANK}  # type: ignore[attr-defined]
    result = await computer(click)
    assert result.kind == "denied" and text(result) == f"denied: {BANK}"
    assert "cdp" not in seen and "cdp_sequence" not in seen


async def test_typing_into_a_focused_frame_of_a_denied_site_sends_nothing() -> None:
    seen: list[str] = []
    computer = handler("computer", _page(seen, focus_frame=BANK))
    typing = tool_call("computer", action="type", text="4242")
    typing.effects.denied = {BANK}  # type: ignore[attr-defined]
    result = await computer(typing)
    assert result.kind == "denied"
    assert "cdp" not in seen and "cdp_sequence" not in seen
