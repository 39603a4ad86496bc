"""A screenshot's viewport read and its capture, together when the last one allows it.

The clip of a screenshot is computed from the viewport, which is read first. When the tab's
last screenshot showed the whole viewport as the browser draws it, the read and a capture with
no clip go out together, and that capture is kept only when the read shows it is the image the
clip would have given. A fake channel stands in for the browser: it answers the viewport read
with the viewport it is given, and a capture with an image header of the size Chrome would
draw.
"""

from __future__ import annotations

import base64
import struct
from typing import Any, cast

import pytest
import trio
import trio.lowlevel

from ghostlight_trio.browser.errors import BrowserError
from ghostlight_trio.engine.contracts import ToolCall
from ghostlight_trio.tools.shared.capture import capture
from ghostlight_trio.tools.shared.channel import PageChannel
from ghostlight_trio.tools.shared.screenshots import ShotContext, full_view

TAB = 7
CALL = cast(ToolCall, object())


def jpeg_of(width: int, height: int) -> str:
    """A JPEG's start and frame header (all ``jpeg_size`` reads), base64 as CDP sends it."""
    header = b"\xff\xd8\xff\xc0" + struct.pack(">HBHH", 11, 8, height, width) + b"\x01\x01\x11\x00"
    return base64.b64encode(header).decode()


class Browser:
    """Answers the viewport read and the ``screenshot`` op, and notes what was asked."""

    def __init__(self, width: int, height: int, dpr: float = 1.0) -> None:
        self.view: dict[str, Any] = {
            "w": width,
            "h": height,
            "dpr": dpr,
            "sx": 0,
            "sy": 40,
            "url": "u",
            "title": "t",
        }
        self.asked: list[str] = []
        self.capture_sent = trio.Event()
        self.read_waits_for_capture = False
        self.capture_fails = False
        self.read_fails = False

    async def evaluate(self, call: ToolCall, tab: int, expression: str, *, read: bool) -> Any:
        self.asked.append("viewport")
        if self.read_waits_for_capture:
            await self.capture_sent.wait()
        await trio.lowlevel.checkpoint()
        if self.read_fails:
            raise BrowserError("the page did not answer", hop="page")
        return self.view

    async def read(self, call: ToolCall, op: str, args: dict[str, Any], bound: float) -> Any:
        assert op == "screenshot" and args["tabId"] == TAB
        params = args["params"]
        clip = params.get("clip")
        self.asked.append("clipped capture" if clip else "capture")
        self.capture_sent.set()
        await trio.lowlevel.checkpoint()
        if self.capture_fails:
            raise BrowserError("no frame", hop="cdp")
        dpr = float(self.view["dpr"])
        if clip:  # Chrome draws a clip at width * scale * devicePixelRatio pixels
            size = (
                round(clip["width"] * clip["scale"] * dpr),
                round(clip["height"] * clip["scale"] * dpr),
            )
        else:  # the viewport, one image pixel per device pixel
            size = (round(self.view["w"] * dpr), round(self.view["h"] * dpr))
        return {"data": jpeg_of(*size), "via": "capture"}


def channel(browser: Browser) -> PageChannel:
    return cast(PageChannel, browser)


def drawn_as_is(width: int, height: int) -> ShotContext:
    return full_view(width, height, (width, height))


async def test_without_a_last_screenshot_the_viewport_is_read_first() -> None:
    browser = Browser(1280, 633)
    shot = await capture(channel(browser), CALL, TAB)
    assert browser.asked == ["viewport", "clipped capture"]
    assert shot.context == ShotContext(1280, 633, 1280, 633, 0.0, 0.0, 1280, 633, 1.0)
    assert shot.context.whole_view_as_drawn


async def test_a_viewport_drawn_as_is_is_read_and_captured_together() -> None:
    browser = Browser(1280, 633)
    browser.read_waits_for_capture = True  # read first, then capture, would never end
    with trio.fail_after(5):
        shot = await capture(channel(browser), CALL, TAB, last=drawn_as_is(1280, 633))
    assert sorted(browser.asked) == ["capture", "viewport"]
    assert shot.context == ShotContext(1280, 633, 1280, 633, 0.0, 0.0, 1280, 633, 1.0)
    assert shot.viewport.scroll_y == 40


async def test_a_viewport_that_changed_meanwhile_is_captured_again_clipped() -> None:
    browser = Browser(1920, 1080)  # resized since the last screenshot: now scaled down
    shot = await capture(channel(browser), CALL, TAB, last=drawn_as_is(1280, 633))
    assert sorted(browser.asked[:2]) == ["capture", "viewport"]
    assert browser.asked[2:] == ["clipped capture"]
    assert (shot.context.viewport_width, shot.context.viewport_height) == (1920, 1080)
    assert (shot.context.shot_width, shot.context.shot_height) != (1920, 1080)
    assert not shot.context.whole_view_as_drawn


async def test_a_device_scale_above_one_is_never_taken_unclipped() -> None:
    browser = Browser(1280, 633, dpr=2.0)
    shot = await capture(channel(browser), CALL, TAB, last=drawn_as_is(1280, 633))
    assert browser.asked[2:] == ["clipped capture"]
    assert (shot.context.shot_width, shot.context.shot_height) == (1280, 633)
    assert shot.context.device_pixel_ratio == 2.0
    # Its context says so: the next screenshot of the tab reads the viewport first.
    assert not shot.context.whole_view_as_drawn
    browser.asked.clear()
    await capture(channel(browser), CALL, TAB, last=shot.context)
    assert browser.asked == ["viewport", "clipped capture"]


async def test_a_zoom_region_is_never_taken_unclipped() -> None:
    browser = Browser(1280, 633)
    await capture(channel(browser), CALL, TAB, (10, 10, 200, 100), last=drawn_as_is(1280, 633))
    assert browser.asked == ["viewport", "clipped capture"]


async def test_a_failed_read_is_raised_as_itself() -> None:
    browser = Browser(1280, 633)
    browser.read_fails = True
    with pytest.raises(BrowserError, match="the page did not answer"):
        await capture(channel(browser), CALL, TAB, last=drawn_as_is(1280, 633))


async def test_a_failed_capture_beside_the_read_is_taken_again_and_says_why() -> None:
    browser = Browser(1280, 633)
    browser.capture_fails = True
    with pytest.raises(BrowserError, match="no frame"):
        await capture(channel(browser), CALL, TAB, last=drawn_as_is(1280, 633))
    assert browser.asked[2:] == ["clipped capture"]
