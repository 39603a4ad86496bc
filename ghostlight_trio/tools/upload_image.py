"""``upload_image``: put a screenshot the computer tool took into the page: into a file input
(by ref) or dropped onto whatever is at a point of that screenshot (by coordinate).

Only this workspace's own recent screenshots can be placed (``ImageStore``). A drop is a
synthetic drag (dragenter, dragover, drop); whether the page took it can only be told from
whether it claimed the drop, and the answer says exactly that.
"""

from __future__ import annotations

import base64
from typing import Any

from ..engine.contracts import ToolCall, ToolHandler, ToolResult
from ..transport.excerpt import excerpt
from .browser_calls import PageChannel, ToolInputError, guarded
from .browser_context import BrowserRequests
from .image_store import ImageStore
from .placement import drop_point, place_files
from .screenshots import ContextBook

DEFAULT_NAME = "image.jpg"
"""The screenshots are JPEG; the default name says so."""


def upload_image_handlers(
    workspaces: Any, browser: BrowserRequests, *, images: ImageStore, contexts: ContextBook
) -> dict[str, ToolHandler]:
    del workspaces  # ownership is checked by the engine before a handler runs
    return {"upload_image": guarded(UploadImage(PageChannel(browser), images, contexts))}


class UploadImage:
    def __init__(self, channel: PageChannel, images: ImageStore, contexts: ContextBook) -> None:
        self._channel = channel
        self._images = images
        self._contexts = contexts

    async def __call__(self, call: ToolCall, tab: int) -> ToolResult:
        arguments = call.arguments
        ref, point = arguments.get("ref"), arguments.get("coordinate")
        if (ref is None) == (point is None):
            raise ToolInputError("Give exactly one of ref (a file input) or coordinate (a drop"
                                 " point); nothing was uploaded.")  # fmt: skip
        image_id = str(arguments["imageId"])
        image = self._images.get(call.context.workspace_id, image_id)
        if image is None:
            raise ToolInputError(
                f"No screenshot {excerpt(image_id)!r} is kept for this workspace (the last 8"
                " are). Take one with computer (action screenshot) and use the imageId it"
                " gives; nothing was uploaded."
            )
        name = str(arguments.get("filename") or DEFAULT_NAME)
        files = [{"name": name, "mimeType": image.mime_type,
                  "data": base64.b64encode(image.data).decode("ascii")}]  # fmt: skip
        return await place_files(
            self._channel, call, tab, files, len(image.data), operation="upload_image",
            ref=None if ref is None else str(ref),
            point=None if point is None else drop_point(point, "nothing was uploaded"),
            contexts=self._contexts,
        )  # fmt: skip
