"""file_upload refuses, before anything is sent, what could not be uploaded whole."""

from __future__ import annotations

import base64

import pytest

from ghostlight_trio.tools.file_upload import MAX_BYTES, checked_files
from ghostlight_trio.tools.shared.guard import ToolInputError


def b64(size: int) -> str:
    return base64.b64encode(b"x" * size).decode()


def test_files_pass_with_their_decoded_size_and_a_default_type() -> None:
    files, total = checked_files({"files": [{"data": b64(10), "name": "a.bin"}]})
    assert total == 10 and files[0]["mimeType"] == "application/octet-stream"


@pytest.mark.parametrize(
    ("arguments", "says"),
    [
        ({"files": [{"data": b64(MAX_BYTES + 1), "name": "big.bin"}]}, "at most 3000000 bytes (3 MB)"),
        ({"files": [{"data": b64(1), "name": "  "}]}, "empty name"),
        ({"files": [{"data": "abc", "name": "a"}]}, "not valid base64"),
        ({"files": [{"data": b64(1), "name": "a"}] * 21}, "At most 20 files"),
        ({"paths": ["/home/me/cv.pdf"], "files": [{"data": b64(1), "name": "a"}]}, "paths are not"),
    ],
)
def test_what_cannot_go_whole_is_refused(arguments: dict, says: str) -> None:
    with pytest.raises(ToolInputError, match="nothing was uploaded") as refused:
        checked_files(arguments)
    assert says in str(refused.value)
