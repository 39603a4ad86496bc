"""``upload_image``: put a screenshot the computer tool took into the page: into a file input
(by ref) or dropped onto whatever is at a point of that screenshot (by coordinate).

Only this workspace's own recent screenshots can be placed (``ImageStore``). A drop is a
synthetic drag (dragenter, dragover, drop); whether the page took it can only be told from
whether it claimed the drop, and the answer says exactly that.
"""

from __future__ import annotations

import base64
import mimetypes
from pathlib import PurePosixPath

import attrs

from ..engine.contracts import ToolCall, ToolResult
from ..transport.bridge import TextBlock
from ..untrusted.excerpt import excerpt
from .shared.channel import PageChannel
from .shared.guard import ToolInputError
from .shared.image_store import ImageStore
from .shared.placement import drop_point, place_files
from .shared.screenshots import ContextBook

DEFAULT_NAME = "image.jpg"
"""The screenshots are JPEG; the default name says so."""


@attrs.frozen
class UploadImage:
    _channel: PageChannel
    _images: ImageStore
    _contexts: ContextBook

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
        asked = str(arguments.get("filename") or DEFAULT_NAME)
        name = named_for(asked, image.mime_type)
        files = [{"name": name, "mimeType": image.mime_type,
                  "data": base64.b64encode(image.data).decode("ascii")}]  # fmt: skip
        placed = await place_files(
            self._channel, call, tab, files, len(image.data), operation="upload_image",
            ref=None if ref is None else str(ref),
            point=None if point is None else drop_point(point, "nothing was uploaded"),
            contexts=self._contexts,
        )  # fmt: skip
        if name == asked or placed.kind != "ok":
            return placed
        note = TextBlock(
            text=f"The file was named {excerpt(name, 80)!r}, not {excerpt(asked, 80)!r}: the image"
            f" is {image.mime_type}, and a site reads the type from the name as well."
        )
        return attrs.evolve(placed, content=[*placed.content, note])


def named_for(name: str, mime_type: str) -> str:
    """``name`` with an extension that says what the image is: a screenshot is a JPEG, and a
    site that reads ``shot.png`` as a PNG would refuse or mangle it."""
    fitting = mimetypes.guess_all_extensions(mime_type)
    if not fitting:
        return name
    path = PurePosixPath(name)
    suffix = path.suffix.lower()
    if suffix in fitting or (suffix == ".jpg" and mime_type == "image/jpeg"):
        return name
    right = ".jpg" if mime_type == "image/jpeg" else fitting[0]
    known = suffix and mimetypes.guess_type(f"x{suffix}")[0] is not None
    return f"{name[: -len(suffix)]}{right}" if known else f"{name}{right}"
