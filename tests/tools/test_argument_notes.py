"""Arguments taken otherwise than given are said so: a limit or max_chars out of range, a
console pattern that is no regular expression; line-wrapped base64 is the data it encodes."""

from __future__ import annotations

import base64

from ghostlight_trio.tools.file_upload import checked_files
from ghostlight_trio.tools.shared.buffers import INVALID_PATTERN_NOTE, console_lines, limit_notes


def test_a_limit_out_of_range_is_named_with_what_was_used() -> None:
    assert limit_notes(None) == [] and limit_notes(5) == [] and limit_notes(1000) == []
    assert limit_notes(0) == ["Note: limit 0 is not a whole number from 1 to 1000; 1 was used."]
    assert limit_notes(1.7) == ["Note: limit 1.7 is not a whole number from 1 to 1000; 1 was used."]
    assert limit_notes(1e12)[0].endswith("; 1000 was used.")


def test_a_pattern_that_is_no_regex_is_matched_as_text_and_said_so() -> None:
    entries = [{"level": "log", "text": "x[1] = 2"}, {"level": "log", "text": "other"}]
    lines, count, notes = console_lines(entries, pattern="x[", only_errors=False, limit=10)
    assert (lines, count, notes) == (["[log] x[1] = 2"], 1, [INVALID_PATTERN_NOTE])
    _, _, fine = console_lines(entries, pattern="^x", only_errors=False, limit=10)
    assert fine == []


def test_line_wrapped_base64_is_the_data_it_encodes() -> None:
    data = base64.encodebytes(b"hello " * 40).decode()  # a line break every 76 characters
    assert "\n" in data
    files, total = checked_files({"files": [{"name": "a.txt", "data": data}]})
    assert total == 240 and "\n" not in files[0]["data"]
