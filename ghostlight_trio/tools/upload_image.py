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
from .receipts import build_receipt, observe_settled, receipt_result
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
        size = f"{max(1, round(len(image.data) / 1024))} KB"
        if ref is not None:
            return await self._into_input(call, tab, str(ref), files, f"{name} ({size})")
        return await self._drop(call, tab, point, files, f"{name} ({size})")

    async def _into_input(
        self, call: ToolCall, tab: int, ref: str, files: list[dict[str, str]], what: str
    ) -> ToolResult:
        before = await self._channel.observe_ref(call, tab, ref)
        await self._channel.content(call, tab, "set_files", {"ref": ref, "files": files})
        summary = f"Put {what} into file input {ref}."
        return await self._receipt(call, tab, summary, before, {"ref": ref}, "ref")

    async def _drop(
        self, call: ToolCall, tab: int, point: Any, files: list[dict[str, str]], what: str
    ) -> ToolResult:
        numbers = (
            isinstance(point, list | tuple) and len(point) == 2
            and all(isinstance(v, int | float) and not isinstance(v, bool) for v in point)
        )  # fmt: skip
        if not numbers:
            raise ToolInputError("coordinate must be [x, y] in screenshot pixels; nothing was uploaded.")
        x, y = self._contexts.to_css(tab, float(point[0]), float(point[1]))
        before = await self._channel.content(call, tab, "observe", {"x": x, "y": y})
        dropped = await self._channel.content(
            call, tab, "drop_files", {"x": x, "y": y, "files": files}
        )
        handled = isinstance(dropped, dict) and bool(dropped.get("handled"))
        verdict = (
            "the page claimed the drop" if handled
            else "the page did not claim it (no drop target there handled it)"
        )  # fmt: skip
        summary = f"Dropped {what} at ({point[0]}, {point[1]}): {verdict}."
        return await self._receipt(call, tab, summary, before, {"x": x, "y": y}, "coordinate")

    async def _receipt(
        self, call: ToolCall, tab: int, summary: str, before: Any, where: dict[str, Any],
        assurance: str,
    ) -> ToolResult:  # fmt: skip
        await call.effects.checkpoint()
        after = await observe_settled(lambda: self._channel.content(call, tab, "observe", where))
        target = after.get("target") if isinstance(after, dict) else None
        receipt = build_receipt("upload_image", tab, before, after, assurance=assurance, target=target)
        return receipt_result(summary, receipt, call.context.workspace_id)
