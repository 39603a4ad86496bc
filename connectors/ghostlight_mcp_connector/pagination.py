"""Opaque tools/list cursors: they name a catalog generation and an offset, nothing else.

A cursor from another generation is refused, so a client never stitches pages of two
different tool sets together; it lists again from the start. Only a cursor this connector
could have issued is accepted: exactly the text ``encode_cursor`` gives (no padding, no other
spelling of the same bytes or numbers) for an offset that starts a page at the current page
size. Anything else (a forged offset, a tampered character) is refused the same way.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable
from typing import Any, TypeVar

import attrs

from ghostlight_trio.transport.bridge import CatalogProjection

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
    """The generation and offset of a cursor ``encode_cursor`` could have given; else None."""
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        raw = base64.urlsafe_b64decode(padded.encode("ascii")).decode("ascii")
    except (binascii.Error, UnicodeError, ValueError):
        return None
    parts = raw.split(":")
    if len(parts) != 3 or parts[0] != "gl1" or not all(_small_number(p) for p in parts[1:]):
        return None
    generation, offset = int(parts[1]), int(parts[2])
    # One spelling only: the decoder skips stray characters and ignores the spare bits of the
    # last one, so equal bytes are not enough; the cursor must be what was issued, exactly.
    if encode_cursor(generation, offset) != cursor:
        return None
    return generation, offset


def _small_number(text: str) -> bool:
    """Digits of a number a real cursor could hold (a generation or an offset), written as
    ``str(int)`` writes it: no sign, no leading zero."""
    return (
        text.isascii()
        and text.isdigit()
        and len(text) <= 18
        and (text == "0" or not text.startswith("0"))
    )


def cursor_is_well_formed(cursor: str) -> bool:
    return _decode_cursor(cursor) is not None


def page_for(cursor: str | None, *, generation: int, total: int, page_size: int) -> Page | None:
    """The slice a cursor asks for, or None when the cursor is not one this catalog issued."""
    offset = 0
    if cursor is not None:
        decoded = _decode_cursor(cursor)
        if (
            decoded is None
            or decoded[0] != generation
            or not 0 < decoded[1] < total
            or decoded[1] % page_size != 0  # a page starts at a multiple of the page size
        ):
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
    render: Callable[[int, int], list[dict[str, Any]]],
) -> dict[str, Any] | None:
    """The ``tools`` (and ``nextCursor``) of one list page; None for a cursor to refuse.
    ``render(start, stop)`` gives the rendered tools of that slice of the projection."""
    page = page_for(
        cursor, generation=projection.generation, total=len(projection.tools), page_size=page_size
    )
    if page is None:
        return None
    body: dict[str, Any] = {"tools": render(page.start, page.stop)}
    if page.next_cursor is not None:
        body["nextCursor"] = page.next_cursor
    return body
