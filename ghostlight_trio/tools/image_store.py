"""Screenshots the computer tool took, kept briefly so upload_image can place one in a page.

Each workspace keeps its last few images, in memory only and within one byte bound for all,
under ids made from ``secrets``; an id is looked up only within the workspace that took it, so
one client cannot place another's screenshot.
"""

from __future__ import annotations

import secrets
from collections import OrderedDict

import attrs

PER_WORKSPACE = 8
MAX_BYTES = 32 * 1024 * 1024
"""All kept images together, at most (the oldest go first)."""


@attrs.frozen
class StoredImage:
    data: bytes
    mime_type: str


class ImageStore:
    def __init__(self, per_workspace: int = PER_WORKSPACE, max_bytes: int = MAX_BYTES) -> None:
        self._per_workspace = per_workspace
        self._max_bytes = max_bytes
        self._images: OrderedDict[tuple[str | None, str], StoredImage] = OrderedDict()
        """Oldest first, across workspaces."""
        self._counts: dict[str | None, int] = {}
        self._bytes = 0

    def put(self, workspace: str | None, data: bytes, mime_type: str) -> str:
        """Keep an image; its id (``img_`` and 32 hex digits)."""
        image_id = f"img_{secrets.token_hex(16)}"
        self._images[(workspace, image_id)] = StoredImage(data, mime_type)
        self._counts[workspace] = self._counts.get(workspace, 0) + 1
        self._bytes += len(data)
        if self._counts[workspace] > self._per_workspace:
            oldest = next(key for key in self._images if key[0] == workspace)
            self._drop(oldest)
        while self._bytes > self._max_bytes and len(self._images) > 1:
            self._drop(next(iter(self._images)))
        return image_id

    def get(self, workspace: str | None, image_id: str) -> StoredImage | None:
        return self._images.get((workspace, image_id))

    def _drop(self, key: tuple[str | None, str]) -> None:
        image = self._images.pop(key)
        self._bytes -= len(image.data)
        remaining = self._counts[key[0]] - 1
        if remaining:
            self._counts[key[0]] = remaining
        else:
            del self._counts[key[0]]
