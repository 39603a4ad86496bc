"""Which frame input reaches is the browser's answer (its hit test, its frame tree, the frame's
target), never a frame's ``src``: a frame of another site is named by the page committed in it."""

from __future__ import annotations

from typing import Any

import pytest

from ghostlight_trio.browser.errors import BrowserError
from ghostlight_trio.tools.computer.frame_reach import (
    OtherSiteRefused,
    refuse_frames_at,
    refuse_frames_focused,
)

from .fakes import tool_call

TREE = {
    "frameTree": {
        "frame": {"id": "MAIN", "url": "https://shop.test/"},
        "childFrames": [
            {
                "frame": {"id": "SAME", "url": "https://shop.test/widget"},
                "childFrames": [{"frame": {"id": "DEEP", "url": "https://bank.test/inner"}}],
            }
        ],
    }
}


class Browser:
    """The DevTools answers of a page: a hit test per point, its frame tree, frame targets."""

    def __init__(self, hits: dict[tuple[int, int], tuple[str, str | None]], targets: dict[str, str]) -> None:
        self.hits, self.targets = hits, targets
        self.asked: list[str] = []

    async def cdp(self, call: Any, tab: int, method: str, params: Any = None, bound: float = 0, *, read: bool = False) -> dict[str, Any]:
        self.asked.append(method)
        if method == "DOM.getNodeForLocation":
            hit = self.hits.get((params["x"], params["y"]))
            if hit is None:
                raise BrowserError("DOM.getNodeForLocation failed: No node found at given location", hop="cdp")
            return {"backendNodeId": 1, "frameId": hit[0], "_owns": hit[1]}
        if method == "DOM.describeNode":
            owned = [h[1] for h in self.hits.values() if h[1]]
            return {"node": {"frameId": owned[0]}} if owned else {"node": {}}
        if method == "Page.getFrameTree":
            return TREE
        raise AssertionError(method)

    async def read(self, call: Any, op: str, args: dict[str, Any], bound: float) -> dict[str, Any]:
        self.asked.append(op)
        return {"frameId": args["frameId"], "url": self.targets.get(args["frameId"])}


def _call(denied: set[str]) -> Any:
    call = tool_call("computer", action="left_click", coordinate=[1, 1])
    call.effects.denied = denied  # type: ignore[attr-defined]
    return call


async def test_a_frame_of_another_site_is_named_by_its_committed_page_not_its_src() -> None:
    browser = Browser({(10, 10): ("MAIN", "OOPIF")}, {"OOPIF": "https://bank.test/pay"})
    with pytest.raises(OtherSiteRefused, match="bank.test/pay"):
        await refuse_frames_at(browser, _call({"https://bank.test/pay"}), 7, 10.2, 9.8)
    assert "frame_url" in browser.asked


async def test_a_frame_in_the_pages_process_is_judged_with_every_frame_under_it() -> None:
    browser = Browser({(5, 5): ("SAME", None)}, {})
    with pytest.raises(OtherSiteRefused, match="bank.test/inner"):
        await refuse_frames_at(browser, _call({"https://bank.test/inner"}), 7, 5, 5)


async def test_the_page_itself_or_nothing_at_the_point_sends_input_on() -> None:
    browser = Browser({(1, 1): ("MAIN", None)}, {})
    await refuse_frames_at(browser, _call({"https://bank.test/inner"}), 7, 1, 1)
    await refuse_frames_at(browser, _call({"https://bank.test/inner"}), 7, 900, 900)


async def test_focus_in_a_frame_the_hit_test_cannot_name_judges_every_frame() -> None:
    browser = Browser({}, {})
    with pytest.raises(OtherSiteRefused, match="bank.test/inner"):
        await refuse_frames_focused(browser, _call({"https://bank.test/inner"}), 7, (3, 3))
    await refuse_frames_focused(browser, _call(set()), 7, None)


async def test_an_extension_too_old_to_name_a_frame_leaves_it_unnamed_for_the_gate() -> None:
    class OldExtension(Browser):
        async def read(self, call: Any, op: str, args: dict[str, Any], bound: float) -> dict[str, Any]:
            raise BrowserError(f"Unknown operation: {op}", code="unknown_op")

    browser = OldExtension({(10, 10): ("MAIN", "OOPIF")}, {})
    with pytest.raises(OtherSiteRefused, match="denied: $"):
        await refuse_frames_at(browser, _call({""}), 7, 10, 10)  # unnamed: refused under a policy
    await refuse_frames_at(browser, _call(set()), 7, 10, 10)  # and let through all-open
