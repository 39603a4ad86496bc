"""What every ``computer`` action works with: the page channel, the tabs' screenshot
coordinate models, and where screenshots are kept for upload_image."""

from __future__ import annotations

from typing import Any

import attrs

from ...engine.contracts import ToolCall
from ..shared.channel import PageChannel
from ..shared.image_store import ImageStore
from ..shared.screenshots import ContextBook

OBSERVE_TIMEOUT = 5.0


@attrs.frozen
class ComputerParts:
    channel: PageChannel
    contexts: ContextBook
    """The tabs' screenshot coordinate models: model coordinates go through them."""
    images: ImageStore | None = None
    """Where screenshots are kept for upload_image (None: they are not kept)."""

    async def observe(self, call: ToolCall, tab: int, **args: Any) -> dict[str, Any] | None:
        """One best-effort page observation (None where the content script cannot run)."""
        return await self.channel.observe(call, tab, args, OBSERVE_TIMEOUT)
