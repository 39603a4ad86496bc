"""``computer`` argument handling that needs no browser: wait is bounded and cancellable."""

from __future__ import annotations

from typing import Any

import trio

from .fakes import handler, tool_call


class _NoBrowser:
    async def request(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        raise AssertionError("no browser traffic expected")


async def test_wait_sleeps_the_duration_and_reports_it() -> None:
    computer = handler("computer", _NoBrowser())
    started = trio.current_time()
    result = await computer(tool_call("computer", action="wait", duration=0.3))
    assert result.kind == "ok" and result.content[0].text == "Waited 0.3s."  # type: ignore[union-attr]
    assert trio.current_time() - started >= 0.3


async def test_wait_is_cancellable() -> None:
    computer = handler("computer", _NoBrowser())
    started = trio.current_time()
    with trio.move_on_after(0.2):
        await computer(tool_call("computer", action="wait", duration=10))
    assert trio.current_time() - started < 1.0


async def test_missing_prerequisites_are_corrective_errors_before_any_traffic() -> None:
    computer = handler("computer", _NoBrowser())
    for arguments, fragment in (
        ({"action": "left_click"}, "coordinate or ref is required"),
        ({"action": "type"}, "text is required"),
        ({"action": "key", "text": "ctrl+banana"}, "Unknown key"),
        ({"action": "zoom"}, "region"),
        ({"action": "left_click_drag", "coordinate": [1, 2]}, "start_coordinate is required"),
        ({"action": "fly"}, "Unknown computer action"),
        # Keys go where the focus is: an aim given with them would be ignored, so it is refused.
        ({"action": "type", "text": "hi", "ref": "ref_3"}, "it does not take ref, and nothing was sent"),
        ({"action": "key", "text": "Enter", "coordinate": [5, 5]}, "Click the field first (left_click with that coordinate)"),
    ):
        result = await computer(tool_call("computer", **arguments))
        assert result.kind == "tool_error", arguments
        assert fragment in result.content[0].text, arguments  # type: ignore[union-attr]
