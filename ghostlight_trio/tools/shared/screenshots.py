"""Screenshot sizing and the coordinate model that maps screenshot pixels back to CSS pixels.

A model sees a downscaled JPEG; its clicks must land where it pointed. Each capture records a
``ShotContext`` (viewport, image size and the CSS region the image shows) per tab, and every
model coordinate is mapped through the tab's latest context. Coordinates derived from element
refs are already CSS pixels and never pass through here. Budget constants: specs/screenshots.md.
"""

from __future__ import annotations

import math
import struct
from collections import OrderedDict
from collections.abc import Iterable

import attrs

LONG_SIDE = 1568
"""Longest side of any image handed to the model, in pixels."""
TILE = 28
"""Edge of one image tile (pixels); a model pays roughly one token per tile."""
TOKEN_BUDGET = 1568
"""Most tiles one image may cost."""
SHRINK_STEP = 0.98
"""Scale reduction per step when rounding pushed an image over the budget."""
JPEG_QUALITY = 55
JPEG_FALLBACK_QUALITY = 30
MAX_BASE64_CHARS = 1_100_000
"""Above this encoded size a capture is retaken at the fallback quality."""
CONTEXT_TABS = 512
"""Tabs whose last screenshot context is remembered (oldest forgotten first)."""


def tiles(width: int, height: int) -> int:
    """Image cost in tiles (each started tile counts)."""
    return math.ceil(width / TILE) * math.ceil(height / TILE)


def target_size(width: float, height: float) -> tuple[int, int]:
    """Largest size of a ``width`` x ``height`` CSS area that fits both budgets, never upscaled."""
    w, h = max(1.0, float(width)), max(1.0, float(height))
    scale = min(1.0, LONG_SIDE / max(w, h))
    cost = tiles(math.ceil(w), math.ceil(h))
    if cost > TOKEN_BUDGET:
        scale = min(scale, math.sqrt(TOKEN_BUDGET / cost))
    size = (max(1, round(w * scale)), max(1, round(h * scale)))
    while tiles(*size) > TOKEN_BUDGET:
        scale *= SHRINK_STEP
        size = (max(1, round(w * scale)), max(1, round(h * scale)))
    return size


def jpeg_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) from a JPEG's frame header, or ``None`` when it is not a JPEG."""
    if data[:2] != b"\xff\xd8":
        return None
    at = 2
    while at + 4 <= len(data):
        if data[at] != 0xFF:
            return None
        marker = data[at + 1]
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
            at += 2
            continue
        (length,) = struct.unpack(">H", data[at + 2 : at + 4])
        is_frame = 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC)
        if is_frame and at + 9 <= len(data):
            height, width = struct.unpack(">HH", data[at + 5 : at + 9])
            return width, height
        at += 2 + length
    return None


@attrs.frozen
class ShotContext:
    """What one screenshot showed: the CSS region ``(off, region)`` drawn at ``shot`` pixels."""

    viewport_width: float
    viewport_height: float
    shot_width: int
    shot_height: int
    offset_x: float = 0.0
    offset_y: float = 0.0
    region_width: float = 0.0
    region_height: float = 0.0
    device_pixel_ratio: float = 1.0
    """The page's ``devicePixelRatio`` when it was taken (1 where it was not read)."""

    @property
    def whole_view_as_drawn(self) -> bool:
        """It showed the whole viewport at the size the browser draws it: one image pixel per
        device pixel, so a capture with no clip at all gives the same image."""
        drawn = (
            self.viewport_width * self.device_pixel_ratio,
            self.viewport_height * self.device_pixel_ratio,
        )
        whole = (self.offset_x, self.offset_y, self.region_width, self.region_height) == (
            0.0, 0.0, self.viewport_width, self.viewport_height,
        )  # fmt: skip
        return whole and (self.shot_width, self.shot_height) == drawn

    def to_css(self, x: float, y: float) -> tuple[float, float]:
        """Viewport CSS pixels for a point given in this screenshot's pixels."""
        css_x = self.offset_x + x * self.region_width / max(1, self.shot_width)
        css_y = self.offset_y + y * self.region_height / max(1, self.shot_height)
        return round(css_x, 1), round(css_y, 1)

    def region_to_css(
        self, x0: float, y0: float, x1: float, y1: float
    ) -> tuple[float, float, float, float] | None:
        """A screenshot-pixel rectangle as a viewport CSS rectangle clamped to the viewport."""
        ax, ay = self.to_css(min(x0, x1), min(y0, y1))
        bx, by = self.to_css(max(x0, x1), max(y0, y1))
        ax, bx = max(0.0, ax), min(self.viewport_width, bx)
        ay, by = max(0.0, ay), min(self.viewport_height, by)
        if bx - ax < 1 or by - ay < 1:
            return None
        return ax, ay, bx - ax, by - ay


def full_view(viewport_width: float, viewport_height: float, shot: tuple[int, int]) -> ShotContext:
    """The context of a capture of the whole viewport."""
    return ShotContext(
        viewport_width,
        viewport_height,
        shot[0],
        shot[1],
        0.0,
        0.0,
        viewport_width,
        viewport_height,
    )


class ContextBook:
    """The latest screenshot context per tab, bounded; a missing context maps 1:1."""

    def __init__(self, limit: int = CONTEXT_TABS) -> None:
        self._limit = limit
        self._contexts: OrderedDict[int, ShotContext] = OrderedDict()

    def get(self, tab_id: int) -> ShotContext | None:
        return self._contexts.get(tab_id)

    def put(self, tab_id: int, context: ShotContext) -> None:
        self._contexts[tab_id] = context
        self._contexts.move_to_end(tab_id)
        while len(self._contexts) > self._limit:
            self._contexts.popitem(last=False)

    def invalidate(self, tab_ids: Iterable[int]) -> None:
        for tab_id in tab_ids:
            self._contexts.pop(tab_id, None)

    def to_css(self, tab_id: int, x: float, y: float) -> tuple[float, float]:
        context = self._contexts.get(tab_id)
        if context is None:
            return float(round(x)), float(round(y))
        return context.to_css(x, y)
