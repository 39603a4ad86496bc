"""Screenshot budget math, JPEG header parsing and the coordinate model."""

from __future__ import annotations

import base64

from hypothesis import given
from hypothesis import strategies as st

from ghostlight_trio.tools.shared.screenshots import (
    LONG_SIDE,
    TOKEN_BUDGET,
    ContextBook,
    ShotContext,
    full_view,
    jpeg_size,
    target_size,
    tiles,
)

# A 3x2 baseline JPEG (tiny, hand-checked header: SOF0 says height 2, width 3).
TINY_JPEG = base64.b64decode(
    "/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAgGBgcGBQgHBwcJCQgKDBQNDAsLDBkSEw8UHRofHh0aHBwgJC4nICIsIxwc"
    "KDcpLDAxNDQ0Hyc5PTgyPC4zNDL/wAALCAACAAMBAREA/8QAFAABAAAAAAAAAAAAAAAAAAAACf/EABQQAQAAAAAAAAAA"
    "AAAAAAAAAAD/2gAIAQEAAD8AKp//2Q=="
)


def test_small_viewports_are_not_scaled() -> None:
    assert target_size(780, 493) == (780, 493)
    assert target_size(1, 1) == (1, 1)


def test_large_viewports_fit_the_token_budget_and_keep_their_aspect() -> None:
    width, height = target_size(1920, 1080)
    assert tiles(width, height) <= TOKEN_BUDGET
    assert abs(width / height - 1920 / 1080) < 0.01
    assert max(target_size(4000, 300)) <= LONG_SIDE


@given(st.integers(1, 8000), st.integers(1, 8000))
def test_every_size_fits_both_budgets(width: int, height: int) -> None:
    got_w, got_h = target_size(width, height)
    assert 1 <= got_w <= width and 1 <= got_h <= height
    assert max(got_w, got_h) <= LONG_SIDE
    assert tiles(got_w, got_h) <= TOKEN_BUDGET


def test_jpeg_size_reads_the_frame_header() -> None:
    assert jpeg_size(TINY_JPEG) == (3, 2)
    assert jpeg_size(b"\x89PNG....") is None
    assert jpeg_size(b"") is None


def test_screenshot_pixels_map_to_css_pixels() -> None:
    # 1600x1000 CSS viewport drawn at 800x500 (any device scale: the image size is what counts).
    context = full_view(1600, 1000, (800, 500))
    assert context.to_css(400, 250) == (800, 500)
    assert context.to_css(10, 20) == (20, 40)


def test_a_zoomed_context_maps_into_its_region() -> None:
    zoomed = ShotContext(1600, 1000, 800, 400, 100, 200, 400, 200)
    assert zoomed.to_css(0, 0) == (100, 200)
    assert zoomed.to_css(800, 400) == (500, 400)


def test_regions_are_clamped_to_the_viewport_and_empty_ones_refused() -> None:
    context = full_view(1000, 500, (500, 250))
    assert context.region_to_css(-10, -10, 100, 100) == (0, 0, 200, 200)
    assert context.region_to_css(600, 300, 700, 400) is None
    assert context.region_to_css(100, 100, 100, 100) is None


def test_context_book_passes_through_without_a_context_and_forgets_on_invalidate() -> None:
    book = ContextBook(limit=2)
    assert book.to_css(1, 10.4, 20.6) == (10, 21)
    book.put(1, full_view(1000, 500, (500, 250)))
    assert book.to_css(1, 10, 20) == (20, 40)
    book.invalidate([1])
    assert book.to_css(1, 10, 20) == (10, 20)
    for tab in (1, 2, 3):
        book.put(tab, full_view(100, 100, (50, 50)))
    assert book.get(1) is None and book.get(3) is not None
