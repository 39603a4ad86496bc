"""Opaque tools/list cursors: they name a catalog generation and an offset, nothing else.

A cursor from another generation is refused, so a client never stitches pages of two
different tool sets together; it lists again from the start.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable
from typing import Any, TypeVar

import attrs

from ghostlight_trio.transport.bridge import CatalogProjection, ToolDescriptor

T = TypeVar("T")
DEFAULT_PAGE_SIZE = 100


@attrs.frozen
class Page:
    start: int
    stop: int
    next_cursor: str | None


def encode_cursor(generation: int, offset: int) -> str:
    raw = f"gl1:{generation}:{offset}".encode("ascii")
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def _decode_cursor(cursor: str) -> tuple[int, int] | None:
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        raw = base64.urlsafe_b64decode(padded.encode("ascii")).decode("ascii")
    except (binascii.Error, UnicodeError, ValueError):
        return None
    parts = raw.split(":")
    if len(parts) != 3 or parts[0] != "gl1" or not all(p.isdigit() for p in parts[1:]):
        return None
    return int(parts[1]), int(parts[2])


def cursor_is_well_formed(cursor: str) -> bool:
    return _decode_cursor(cursor) is not None


def page_for(cursor: str | None, *, generation: int, total: int, page_size: int) -> Page | None:
    """The slice a cursor asks for, or None when the cursor is not one this catalog issued."""
    offset = 0
    if cursor is not None:
        decoded = _decode_cursor(cursor)
        if decoded is None or decoded[0] != generation or not 0 < decoded[1] < total:
            return None
        offset = decoded[1]
    stop = min(offset + page_size, total)
    next_cursor = encode_cursor(generation, stop) if stop < total else None
    return Page(offset, stop, next_cursor)


INVALID_CURSOR_MESSAGE = (
    "Invalid params: this cursor was not issued for the current tool list; list tools again"
    " without a cursor"
)


def tools_page(
    cursor: str | None,
    projection: CatalogProjection,
    page_size: int,
    render: Callable[[ToolDescriptor], dict[str, Any]],
) -> dict[str, Any] | None:
    """The ``tools`` (and ``nextCursor``) of one list page; None for a cursor to refuse."""
    page = page_for(
        cursor, generation=projection.generation, total=len(projection.tools), page_size=page_size
    )
    if page is None:
        return None
    body: dict[str, Any] = {"tools": _rendered(projection, page.start, page.stop, render)}
    if page.next_cursor is not None:
        body["nextCursor"] = page.next_cursor
    return body


_RENDERED: dict[tuple[int, int, int, Any], tuple[CatalogProjection, list[dict[str, Any]]]] = {}
_RENDERED_KEPT = 8


def _rendered(
    projection: CatalogProjection,
    start: int,
    stop: int,
    render: Callable[[ToolDescriptor], dict[str, Any]],
) -> list[dict[str, Any]]:
    """The rendered tools of one page, made once per projection: a client listing tools again
    gets the same objects (only read, never changed, once made) instead of fresh deep copies of
    every schema, which cost most of a tools/list."""
    key = (id(projection), start, stop, render)
    kept = _RENDERED.get(key)
    if kept is not None and kept[0] is projection:
        return kept[1]
    if len(_RENDERED) >= _RENDERED_KEPT:
        _RENDERED.clear()
    tools = [render(tool) for tool in projection.tools[start:stop]]
    _RENDERED[key] = (projection, tools)
    return tools
