"""Screenshots the computer tool took, kept briefly so upload_image can place one in a page.

Each workspace keeps its last few images, in memory only and within one byte bound for all,
under ids made from ``secrets``; an id is looked up only within the workspace that took it, so
one client cannot place another's screenshot.

The bound is shared fairly: when it is exceeded, the workspace holding the most bytes loses its
oldest image first, so an agent that keeps taking screenshots pushes out its own, not another's.
The image just kept never goes (its id was just handed out): when it is the only image of the
workspace holding the most, the next one loses its oldest instead.
"""

from __future__ import annotations

import itertools
import secrets
from collections import OrderedDict

import attrs

PER_WORKSPACE = 8
MAX_BYTES = 32 * 1024 * 1024
"""All kept images together, at most (the workspace holding the most loses its oldest first)."""


@attrs.frozen
class StoredImage:
    data: bytes
    mime_type: str


@attrs.frozen
class _Kept:
    image: StoredImage
    serial: int
    """Order of arrival across workspaces (smaller is older): breaks ties between workspaces
    holding the same number of bytes."""


class ImageStore:
    def __init__(self, per_workspace: int = PER_WORKSPACE, max_bytes: int = MAX_BYTES) -> None:
        self._per_workspace = per_workspace
        self._max_bytes = max_bytes
        self._kept: dict[str | None, OrderedDict[str, _Kept]] = {}
        """Per workspace, oldest first."""
        self._held: dict[str | None, int] = {}
        """Bytes each workspace holds."""
        self._bytes = 0
        self._serials = itertools.count()

    def put(self, workspace: str | None, data: bytes, mime_type: str) -> str:
        """Keep an image; its id (``img_`` and 32 hex digits)."""
        image_id = f"img_{secrets.token_hex(16)}"
        images = self._kept.setdefault(workspace, OrderedDict())
        images[image_id] = _Kept(StoredImage(data, mime_type), next(self._serials))
        self._held[workspace] = self._held.get(workspace, 0) + len(data)
        self._bytes += len(data)
        if len(images) > self._per_workspace:
            self._drop(workspace, next(iter(images)))
        while self._bytes > self._max_bytes:
            victim = self._victim(keep=(workspace, image_id))
            if victim is None:
                break  # only the image just kept is left: it stays, even over the bound
            self._drop(*victim)
        return image_id

    def get(self, workspace: str | None, image_id: str) -> StoredImage | None:
        images = self._kept.get(workspace)
        kept = None if images is None else images.get(image_id)
        return None if kept is None else kept.image

    def forget_workspace(self, workspace: str | None) -> None:
        """Drop every image of ``workspace`` (it was released or expired)."""
        self._kept.pop(workspace, None)
        self._bytes -= self._held.pop(workspace, 0)

    @property
    def bytes_held(self) -> int:
        return self._bytes

    def bytes_of(self, workspace: str | None) -> int:
        return self._held.get(workspace, 0)

    def _victim(self, keep: tuple[str | None, str]) -> tuple[str | None, str] | None:
        """The image to go next: the oldest of the workspace holding the most bytes (on a tie,
        of the one whose oldest is older), never ``keep``; None when only ``keep`` is left."""
        best: tuple[int, int] | None = None
        victim: tuple[str | None, str] | None = None
        for workspace, images in self._kept.items():
            oldest_id, oldest = next(iter(images.items()))
            if (workspace, oldest_id) == keep:
                continue  # its only image is the one just kept
            rank = (self._held[workspace], -oldest.serial)
            if best is None or rank > best:
                best, victim = rank, (workspace, oldest_id)
        return victim

    def _drop(self, workspace: str | None, image_id: str) -> None:
        images = self._kept[workspace]
        kept = images.pop(image_id)
        self._bytes -= len(kept.image.data)
        self._held[workspace] -= len(kept.image.data)
        if not images:
            del self._kept[workspace]
            del self._held[workspace]
