"""Capturing a tab as a budget-sized JPEG and recording the coordinate context it defines."""

from __future__ import annotations

import base64
import contextlib
from typing import Any

import attrs
import trio

from ...browser.errors import BrowserError
from ...engine.contracts import ToolCall
from .channel import PageChannel
from .screenshots import (
    JPEG_FALLBACK_QUALITY,
    JPEG_QUALITY,
    MAX_BASE64_CHARS,
    ShotContext,
    jpeg_size,
    target_size,
)

PROBE = (
    "({w: innerWidth, h: innerHeight, dpr: devicePixelRatio, sx: scrollX, sy: scrollY,"
    " url: location.href, title: document.title})"
)
"""Viewport facts a capture needs; read-only."""
CAPTURE_TIMEOUT = 30.0
"""Bound on the extension's ``screenshot`` op (its own waits for a background tab are ~14 s)."""


@attrs.frozen
class Viewport:
    width: float
    height: float
    dpr: float
    scroll_x: float
    scroll_y: float
    url: str
    title: str


@attrs.frozen
class Capture:
    data: bytes
    context: ShotContext
    viewport: Viewport
    whole_view: bool = False
    """The image shows the whole viewport although a region was asked for (a background tab's
    screencast frame, which cannot be clipped); ``context`` describes what it really shows."""


def viewport_from(value: Any) -> Viewport:
    """A probe answer as a ``Viewport`` (defensive: the page may have odd globals)."""
    raw = value if isinstance(value, dict) else {}

    def num(key: str, default: float) -> float:
        got = raw.get(key)
        return float(got) if isinstance(got, int | float) and got == got else default

    return Viewport(
        width=max(1.0, num("w", 1.0)),
        height=max(1.0, num("h", 1.0)),
        dpr=max(0.1, num("dpr", 1.0)),
        scroll_x=num("sx", 0.0),
        scroll_y=num("sy", 0.0),
        url=str(raw.get("url", "")),
        title=str(raw.get("title", "")),
    )


async def probe(channel: PageChannel, call: ToolCall, tab: int) -> Viewport:
    return viewport_from(await channel.evaluate(call, tab, PROBE, read=True))


async def _shoot(
    channel: PageChannel, call: ToolCall, tab: int, params: dict[str, Any], frame: dict[str, Any]
) -> dict[str, Any]:
    """The extension's ``screenshot`` op: a read, so a timeout never quarantines the tab."""
    args = {"tabId": tab, "params": params, "frame": frame}
    try:
        return await channel.read(call, "screenshot", args, CAPTURE_TIMEOUT)
    except BrowserError as error:
        if error.code != "unknown_op":
            raise
    # An older extension without the op: a direct capture (foreground tabs only).
    result = await channel.cdp(
        call, tab, "Page.captureScreenshot", params, CAPTURE_TIMEOUT, read=True
    )
    return {"data": result.get("data", ""), "via": "capture"}


async def _read_beside_capture(
    channel: PageChannel, call: ToolCall, tab: int, last: ShotContext
) -> tuple[Viewport, dict[str, Any] | None]:
    """The viewport read and, at the same time, a capture with no clip of a viewport drawn as
    ``last`` was (its answer, or None when it failed: the clipped capture then says why). A
    failed read is raised as itself, as a read on its own would be."""
    frame = {"quality": JPEG_QUALITY, "maxWidth": last.shot_width, "maxHeight": last.shot_height}
    unclipped = {"format": "jpeg", "quality": JPEG_QUALITY}
    views: list[Viewport] = []
    shots: list[dict[str, Any]] = []
    failed: list[Exception] = []

    async with trio.open_nursery() as nursery:

        async def read() -> None:
            try:
                views.append(await probe(channel, call, tab))
            except Exception as failure:  # noqa: BLE001 - raised below, outside the nursery
                failed.append(failure)
                nursery.cancel_scope.cancel()

        async def shoot() -> None:
            with contextlib.suppress(Exception):  # taken again clipped, which says why
                shots.append(await _shoot(channel, call, tab, unclipped, frame))

        nursery.start_soon(read)
        nursery.start_soon(shoot)
    if failed:
        raise failed[0]
    return views[0], (shots[0] if shots else None)


def _as_clipped(answer: dict[str, Any], view: Viewport, size: tuple[int, int]) -> bool:
    """An unclipped capture is the image the clipped one would be: the clip would cover the
    whole viewport at one image pixel per device pixel, and the image has exactly that size."""
    data = answer.get("data")
    if not isinstance(data, str) or len(data) > MAX_BASE64_CHARS:
        return False
    if size != (view.width * view.dpr, view.height * view.dpr):
        return False
    return jpeg_size(base64.b64decode(data)) == size


def _frame_context(view: Viewport, answer: dict[str, Any], data: bytes) -> ShotContext:
    """The context of an unclipped screencast frame: the whole viewport, in its own size."""
    meta = answer.get("metadata")
    meta = meta if isinstance(meta, dict) else {}

    def css(key: str, default: float) -> float:
        got = meta.get(key)
        return float(got) if isinstance(got, int | float) and got > 0 else default

    width, height = css("deviceWidth", view.width), css("deviceHeight", view.height)
    # Content starts offsetTop DIP below the frame's top edge (0 on desktop).
    top = meta.get("offsetTop")
    top = float(top) if isinstance(top, int | float) else 0.0
    size = jpeg_size(data) or target_size(width, height)
    return ShotContext(
        view.width, view.height, size[0], size[1], 0.0, -top, width, height, view.dpr
    )


async def capture(
    channel: PageChannel,
    call: ToolCall,
    tab: int,
    region: tuple[float, float, float, float] | None = None,
    *,
    last: ShotContext | None = None,
) -> Capture:
    """A JPEG of the viewport (or of a viewport CSS ``region`` x, y, w, h) within the budget.

    The clip needs the viewport, so it is read first. ``last``: the tab's latest screenshot
    context. When it showed the whole viewport as drawn, the viewport most likely still is:
    the read and a capture with no clip then go together (one wait for the browser, not two),
    and the capture is kept only when the read shows it is the image the clip would give."""
    early = None
    if region is None and last is not None and last.whole_view_as_drawn:
        view, early = await _read_beside_capture(channel, call, tab, last)
    else:
        view = await probe(channel, call, tab)
    x, y, width, height = region or (0.0, 0.0, view.width, view.height)
    shot_w, shot_h = target_size(width, height)
    # Chrome draws a clip at width * scale * devicePixelRatio pixels.
    scale = shot_w / (width * view.dpr)
    clip = {
        "x": view.scroll_x + x,
        "y": view.scroll_y + y,
        "width": width,
        "height": height,
        "scale": scale,
    }
    params: dict[str, Any] = {"format": "jpeg", "quality": JPEG_QUALITY, "clip": clip}
    if region is not None:
        params["captureBeyondViewport"] = False
    # A background tab's fallback frame is the whole viewport at most at the budget size.
    full_w, full_h = target_size(view.width, view.height)
    frame = {"quality": JPEG_QUALITY, "maxWidth": full_w, "maxHeight": full_h}
    if early is not None and _as_clipped(early, view, (shot_w, shot_h)):
        answer = early
    else:
        answer = await _shoot(channel, call, tab, params, frame)
    if len(str(answer.get("data", ""))) > MAX_BASE64_CHARS:
        params["quality"] = frame["quality"] = JPEG_FALLBACK_QUALITY
        answer = await _shoot(channel, call, tab, params, frame)
    data = base64.b64decode(str(answer.get("data", "")))
    if answer.get("via") == "screencast_frame":
        context = _frame_context(view, answer, data)
        return Capture(data, context, view, whole_view=region is not None)
    size = jpeg_size(data) or target_size(width, height)
    context = ShotContext(view.width, view.height, size[0], size[1], x, y, width, height, view.dpr)
    return Capture(data, context, view)
