"""Capturing a tab as a budget-sized JPEG and recording the coordinate context it defines."""

from __future__ import annotations

import base64
from typing import Any

import attrs

from ..engine.contracts import ToolCall
from .browser_calls import PageChannel
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
    return viewport_from(await channel.evaluate(call, tab, PROBE))


async def capture(
    channel: PageChannel,
    call: ToolCall,
    tab: int,
    region: tuple[float, float, float, float] | None = None,
) -> Capture:
    """A JPEG of the viewport (or of a viewport CSS ``region`` x, y, w, h) within the budget."""
    view = await probe(channel, call, tab)
    x, y, width, height = region or (0.0, 0.0, view.width, view.height)
    shot_w, _ = target_size(width, height)
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
    result = await channel.cdp(call, tab, "Page.captureScreenshot", params, CAPTURE_TIMEOUT)
    encoded = str(result.get("data", ""))
    if len(encoded) > MAX_BASE64_CHARS:
        params["quality"] = JPEG_FALLBACK_QUALITY
        result = await channel.cdp(call, tab, "Page.captureScreenshot", params, CAPTURE_TIMEOUT)
        encoded = str(result.get("data", ""))
    data = base64.b64decode(encoded)
    size = jpeg_size(data) or target_size(width, height)
    context = ShotContext(view.width, view.height, size[0], size[1], x, y, width, height)
    return Capture(data, context, view)
