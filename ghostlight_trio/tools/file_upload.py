"""``file_upload``: put files the agent sends (as bytes) into a page's file input.

The bytes arrive base64-encoded in the call and go into the input as a file chooser would put
them (the page's content script builds the ``File`` objects and fires input and change). Local
paths are refused: Ghostlight never reads the user's disk for an agent.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from ..engine.contracts import ToolCall, ToolResult
from ..untrusted.excerpt import excerpt
from .shared.channel import PageChannel
from .shared.guard import ToolInputError
from .shared.placement import place_files

MAX_BYTES = 3_000_000
"""All files of one call, decoded. An MCP message is at most 4 MiB (4,194,304 bytes); 3,000,000
bytes are 4,000,000 characters of base64, which leaves room for the rest of the message. A larger
file could not arrive whole."""
MAX_FILES = 20
PATHS_REFUSED = (
    "paths are not accepted: Ghostlight does not read local files for an agent. Send each file's"
    " bytes in files (data: base64, name, mimeType); nothing was uploaded."
)


def checked_files(arguments: Mapping[str, Any]) -> tuple[list[dict[str, str]], int]:
    """The files to send and their decoded size, or ToolInputError saying what is wrong."""
    if arguments.get("paths"):
        raise ToolInputError(PATHS_REFUSED)
    files: Sequence[Mapping[str, Any]] = arguments.get("files") or []
    if not files:
        raise ToolInputError("files is empty: give at least one {data, name}; nothing was uploaded.")
    if len(files) > MAX_FILES:
        raise ToolInputError(f"At most {MAX_FILES} files per call ({len(files)} given); nothing was uploaded.")
    out, total = [], 0
    for number, file in enumerate(files, 1):
        name = str(file.get("name", "")).strip()
        if not name:
            raise ToolInputError(f"files[{number - 1}] has an empty name; nothing was uploaded.")
        # Line-wrapped base64 (what ``base64`` and most encoders write) is the same data.
        data = "".join(str(file.get("data", "")).split())
        try:
            size = len(base64.b64decode(data, validate=True))
        except (binascii.Error, ValueError):
            raise ToolInputError(
                f"files[{number - 1}] ({excerpt(name)!r}): data is not valid base64; nothing was"
                " uploaded."
            ) from None
        total += size
        mime = str(file.get("mimeType") or "application/octet-stream")
        out.append({"name": name, "mimeType": mime, "data": data})
    if total > MAX_BYTES:
        raise ToolInputError(
            f"The files hold {total} bytes; at most {MAX_BYTES} bytes (3 MB) go in one call;"
            " nothing was uploaded."
        )
    return out, total


@attrs.frozen
class FileUpload:
    _channel: PageChannel

    async def __call__(self, call: ToolCall, tab: int) -> ToolResult:
        files, total = checked_files(call.arguments)
        ref = str(call.arguments.get("ref", ""))
        return await place_files(
            self._channel, call, tab, files, total, operation="file_upload", ref=ref
        )
