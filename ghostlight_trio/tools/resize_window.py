"""``resize_window``: set one tab's viewport (not its window, which other tabs share)."""

from __future__ import annotations

from typing import Any

import attrs

from ..engine.contracts import ToolCall, ToolResult
from .shared.channel import PageChannel
from .shared.guard import ToolInputError
from .shared.screenshots import ContextBook

VIEWPORT_MIN = 100
VIEWPORT_MAX = 16_384


def _positive(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and value > 0


@attrs.frozen
class ResizeWindow:
    """``contexts``: the screenshot coordinate models, which a new size makes stale."""

    _channel: PageChannel
    _contexts: ContextBook

    async def __call__(self, call: ToolCall, tab: int) -> ToolResult:
        """Sets the tab's own viewport (CDP device metrics), not its window: workspaces share
        windows, and resizing one would change every other tab in it, other workspaces' and
        the user's own included. The page's own report of its size is the answer."""
        width, height = call.arguments.get("width"), call.arguments.get("height")
        if not (_positive(width) and _positive(height)):
            raise ToolInputError("width and height must be positive numbers of pixels.")
        assert isinstance(width, int | float) and isinstance(height, int | float)
        size = round(width), round(height)
        if not all(VIEWPORT_MIN <= side <= VIEWPORT_MAX for side in size):
            raise ToolInputError(
                f"width and height must be between {VIEWPORT_MIN} and {VIEWPORT_MAX} pixels;"
                f" got {size[0]}x{size[1]}."
            )
        metrics = {"width": size[0], "height": size[1], "deviceScaleFactor": 0, "mobile": False}
        await self._channel.cdp(call, tab, "Emulation.setDeviceMetricsOverride", metrics)
        self._contexts.invalidate([tab])
        seen = await self._channel.cdp(
            call,
            tab,
            "Runtime.evaluate",
            {"expression": "[innerWidth, innerHeight]", "returnByValue": True},
            read=True,
        )
        shown = (seen.get("result") or {}).get("value")
        text = (
            f"Set tab {tab}'s viewport to {size[0]}x{size[1]} CSS px: this tab only (other tabs"
            " in its window, yours or not, keep their size); the next screenshot has the new"
            " size."
        )
        if isinstance(shown, list) and [round(v) for v in shown if _positive(v)] != list(size):
            text += f" The page reports {shown[0]}x{shown[1]}."
        return ToolResult.text(text)
