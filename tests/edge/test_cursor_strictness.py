"""tools/list cursors: only one this connector could have issued, exactly as issued, names a
page; any other is refused (-32602), however close it comes to a real one."""

from __future__ import annotations

import base64
import string
from typing import Any

from ghostlight_mcp_connector.pagination import (
    INVALID_CURSOR_MESSAGE,
    cursor_is_well_formed,
    encode_cursor,
    page_for,
)

from ghostlight_trio.transport.bridge import CatalogProjection

from .test_handlers import TOOLS, M, feed, ready_2025_11_25, router_2026_07_28, sent, written

GENERATION = 1
TOTAL = 24
PAGE_SIZE = 7
ALPHABET = string.ascii_letters + string.digits + "-_"


def _forge(text: str) -> str:
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def _page(cursor: str | None, generation: int = GENERATION) -> tuple[int, int, str | None] | None:
    page = page_for(cursor, generation=generation, total=TOTAL, page_size=PAGE_SIZE)
    return None if page is None else (page.start, page.stop, page.next_cursor)


def _list(request_id: int, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/list", "params": params}


def _issued() -> list[str]:
    """Every cursor a whole listing hands out, following ``nextCursor`` from the first page."""
    cursors: list[str] = []
    page = _page(None)
    while page is not None and page[2] is not None:
        cursors.append(page[2])
        page = _page(page[2])
    return cursors


def test_a_listing_follows_its_own_cursors_and_no_offset_between_them() -> None:
    """Page size 7 over 24 tools: cursors are issued at 7, 14 and 21, and only those work."""
    starts = []
    cursor: str | None = None
    while True:
        page = _page(cursor)
        assert page is not None, cursor
        starts.append((page[0], page[1]))
        cursor = page[2]
        if cursor is None:
            break
    assert starts == [(0, 7), (7, 14), (14, 21), (21, 24)]
    assert _issued() == [encode_cursor(GENERATION, offset) for offset in (7, 14, 21)]
    assert all(cursor_is_well_formed(cursor) for cursor in _issued())
    assert _forge("gl1:1:4") == "Z2wxOjE6NA"
    for offset in (1, 4, 6, 8, 13, 20, 22, 23):
        assert _page(_forge(f"gl1:1:{offset}")) is None, offset
    for offset in (0, TOTAL, 28, 700):  # a first page is asked for without a cursor
        assert _page(_forge(f"gl1:1:{offset}")) is None, offset


def test_numbers_are_spelled_only_as_issued() -> None:
    for text in ("gl1:1:007", "gl1:1:07", "gl1:01:7", "gl1:001:14", "gl1:1:0021"):
        assert _page(_forge(text)) is None, text
        assert not cursor_is_well_formed(_forge(text)), text
    for text in ("gl1:+1:7", "gl1:1:+7", "gl1:1:-7", "gl1:1: 7", "gl1:1:7 ", "gl1:1:7\n"):
        assert _page(_forge(text)) is None, text


def test_only_the_canonical_encoding_of_an_issued_cursor_is_accepted() -> None:
    issued = encode_cursor(GENERATION, 7)
    assert _page(issued) == (7, 14, encode_cursor(GENERATION, 14))
    variants = [
        issued + "=" * (-len(issued) % 4),  # padded
        issued + "==",
        " " + issued,
        issued + "\n",
        issued[:4] + "." + issued[4:],  # the decoder skips characters it does not know
        base64.b64encode(b"gl1:1:7").decode(),  # the standard alphabet
    ]
    for variant in variants:
        if variant != issued:
            assert _page(variant) is None, variant
            assert not cursor_is_well_formed(variant), variant


def test_no_one_character_change_of_an_issued_cursor_names_another_page() -> None:
    issued = set(_issued())
    for cursor in issued:
        for index in range(len(cursor)):
            for char in ALPHABET:
                tampered = cursor[:index] + char + cursor[index + 1 :]
                if tampered not in issued:
                    assert _page(tampered) is None, (cursor, tampered)
    # The last character carries spare bits the decoder ignores: the same bytes, refused.
    cursor = encode_cursor(GENERATION, 7)
    same_bytes = cursor[:-1] + ALPHABET[ALPHABET.index(cursor[-1]) + 1]
    assert base64.urlsafe_b64decode(same_bytes + "==") == b"gl1:1:7"
    assert _page(same_bytes) is None


def test_a_cursor_of_another_generation_is_refused_however_it_is_spelled() -> None:
    for offset in (7, 14, 21):
        assert _page(encode_cursor(GENERATION, offset), generation=2) is None
        # The current generation in a spelling it never has is not the current generation.
        assert _page(_forge(f"gl1:02:{offset}"), generation=2) is None
        assert _page(_forge(f"gl1:0002:{offset}"), generation=2) is None
    assert _page(encode_cursor(2, 7), generation=2) == (7, 14, encode_cursor(2, 14))


def test_a_forged_cursor_is_refused_by_both_eras_with_the_usual_error() -> None:
    """Through the routers: the 2026 handler (which checks a cursor before fetching) and
    the 2025 one (which checks it against the projection) answer -32602 alike."""
    tools = TOOLS * 8  # 24 tools, pages of 2
    forged = _forge("gl1:1:3")  # inside the list, but no page starts there
    non_canonical = _forge("gl1:1:02")
    for cursor in (forged, non_canonical):
        r = router_2026_07_28()
        [fetch] = sent(feed(r, _list(1, {"_meta": M})))
        [page] = written(r.receive_bridge(CatalogProjection(fetch.sequence, 1, tools)))
        assert page["result"]["nextCursor"] == encode_cursor(1, 2)
        [refused] = written(feed(r, _list(2, {"_meta": M, "cursor": cursor})))
        assert refused.get("error") == {"code": -32602, "message": INVALID_CURSOR_MESSAGE}, cursor

        r2025, _ = ready_2025_11_25()
        [fetch] = sent(feed(r2025, _list(1, {})))
        [page] = written(r2025.receive_bridge(CatalogProjection(fetch.sequence, 1, tools)))
        assert page["result"]["nextCursor"] == encode_cursor(1, 2)
        [refused] = written(feed(r2025, _list(2, {"cursor": cursor})))
        assert refused.get("error") == {"code": -32602, "message": INVALID_CURSOR_MESSAGE}, cursor
