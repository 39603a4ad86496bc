"""The pure helpers of the ``peers`` benchmark: statistics, checks of answers, the table and
the goal lines. Nothing here is timed or starts a process."""

from __future__ import annotations

import struct

import pytest

from .harness import percentile
from .peers import BenchError
from .peers_bench import (
    PAGES,
    TYPED,
    Results,
    Row,
    format_table,
    goals,
    image_facts,
    json_value,
    typed_text,
)


def test_percentile_is_a_measured_sample_by_nearest_rank() -> None:
    samples = [float(n) for n in range(20, 0, -1)]
    assert percentile(samples, 0.5) == 11.0
    assert percentile(samples, 0.9) == 18.0
    assert percentile(samples, 0.0) == 1.0
    assert percentile(samples, 1.0) == 20.0
    assert percentile([3.0], 0.9) == 3.0
    with pytest.raises(ValueError):
        percentile([], 0.5)
    with pytest.raises(ValueError):
        percentile([1.0], 1.5)


def test_format_table_pads_columns_and_spans_headings() -> None:
    lines = format_table(
        ["name", "ms"], [["heading spanning the table"], ["a", "1.5"], ["bbb", "10.25"]], right=(1,)
    )
    assert lines == [
        "name     ms",
        "----  -----",
        "heading spanning the table",
        "a       1.5",
        "bbb   10.25",
    ]


def _png(width: int, height: int) -> bytes:
    return b"\x89PNG\r\n\x1a\n" + struct.pack(">I4sII", 13, b"IHDR", width, height) + b"\x08\x02"


def _jpeg(width: int, height: int) -> bytes:
    app0 = b"\xff\xe0" + struct.pack(">H", 16) + b"JFIF\x00" + bytes(9)
    sof0 = b"\xff\xc0" + struct.pack(">HBHHB", 11, 8, height, width, 1) + bytes(3)
    return b"\xff\xd8" + app0 + sof0 + b"\xff\xd9"


def test_image_facts_reads_png_and_jpeg_sizes() -> None:
    assert image_facts(_png(1280, 720)) == ("png", 1280, 720)
    assert image_facts(_jpeg(1280, 720)) == ("jpeg", 1280, 720)
    with pytest.raises(ValueError):
        image_facts(b"GIF89a" + bytes(20))


def test_json_value_finds_the_evaluated_string_in_each_peers_answer() -> None:
    ours = '--- PAGE CONTENT abc ---\n"Ghostlight bench ops 1"\n--- END PAGE CONTENT abc ---'
    playwright = '### Result\n"Ghostlight bench ops 1"\n### Ran Playwright code\n```js\n```'
    devtools = 'Script ran on page and returned:\n```json\n"Ghostlight bench ops 1"\n```'
    for text in (ours, playwright, devtools):
        assert json_value(text, "who") == "Ghostlight bench ops 1"
    with pytest.raises(BenchError):
        json_value("no value here", "who")


def test_typed_text_differs_every_call_and_has_the_set_length() -> None:
    texts = [typed_text(index) for index in range(100)]
    assert len(set(texts)) == 100
    assert {len(text) for text in texts} == {TYPED}


def _row(contender: str, p50_ms: float) -> Row:
    async def never(index: int) -> object:
        raise AssertionError

    row = Row(contender, "tool", never)  # type: ignore[arg-type]
    row.samples, row.sizes = [p50_ms / 1000] * 3, [100] * 3
    return row


def test_goal_lines_compare_with_the_fastest_peer_on_every_page() -> None:
    results = Results()
    for page in PAGES:
        results.ops[f"click ({page})"] = [_row("ghostlight", 50.0), _row("playwright", 60.0)]
    results.ops[f"type ({next(iter(PAGES))})"] = [
        _row("ghostlight", 50.0),
        _row("playwright", 40.0),
    ]
    failed = _row("chrome-devtools-mcp", 1.0)
    failed.fail(BenchError("the page counted 0 clicks"))
    results.ops["navigate"] = [_row("ghostlight", 70.0), _row("playwright", 80.0), failed]
    lines = goals(results)
    assert lines[1].startswith("PASS  click with receipt")
    assert lines[2].startswith("FAIL  type")  # slower on one page, and not measured on the other
    assert "ours not measured" in lines[2]
    assert lines[3].startswith("FAIL  type as a fill")  # not measured at all
    assert lines[4].startswith("PASS  navigate")  # the failed peer is no baseline
    assert "vs playwright 80.0 ms" in lines[4]
    assert all(line.startswith("FAIL") for line in lines[5:])  # nothing else was measured
