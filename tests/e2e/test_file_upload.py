"""file_upload in real headless Chromium: the page's own code reads back the files it got."""

from __future__ import annotations

import base64
from typing import Any

import pytest

from .conftest import PAGES, Service, open_page, page_value, text

pytestmark = pytest.mark.e2e

PAGES.update(
    {
        "/upload": """<!doctype html><title>Upload</title>
<label>Avatar <input id="one" type="file" accept="image/*"></label>
<label>Attachments <input id="many" type="file" multiple></label>
<input id="plain" aria-label="Plain">
<script>
window.changes = 0;
window.read = null;
document.getElementById('many').addEventListener('change', async (e) => {
  window.changes += 1;
  window.read = await Promise.all([...e.target.files].map(async (f) => [f.name, f.type, await f.text()]));
});
</script>""",
    }
)


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


async def ref_of(service: Service, ws: str, tab: int, query: str) -> str:
    found = await service.call("find", ws, tabId=tab, query=query)
    return found.structured["results"][0]["ref"]


async def test_files_land_in_the_input_and_the_page_reads_their_bytes(
    extended_service: Service, extended_browser: Any, web: str
) -> None:
    service = extended_service
    ws, tab = await open_page(service, f"{web}/upload")
    ref = await ref_of(service, ws, tab, "Attachments")
    files = [
        {"data": b64(b"hello, page"), "name": "note.txt", "mimeType": "text/plain"},
        {"data": b64("caf\u00e9 \u2615".encode()), "name": "caf\u00e9.csv", "mimeType": "text/csv"},
    ]
    outcome = await service.call("file_upload", ws, tabId=tab, ref=ref, files=files)
    assert outcome.kind == "ok", text(outcome)
    assert text(outcome).startswith(f"Uploaded 2 file(s) to file input {ref}: note.txt, caf\u00e9.csv")
    await page_value(service, ws, tab, "new Promise(r => setTimeout(r, 100))")
    assert await page_value(service, ws, tab, "window.read") == [
        ["note.txt", "text/plain", "hello, page"],
        ["caf\u00e9.csv", "text/csv", "caf\u00e9 \u2615"],
    ]
    assert await page_value(service, ws, tab, "window.changes") == 1


async def test_refusals_upload_nothing_and_say_why(
    extended_service: Service, extended_browser: Any, web: str
) -> None:
    service = extended_service
    ws, tab = await open_page(service, f"{web}/upload")
    one = await ref_of(service, ws, tab, "Avatar")
    plain = await ref_of(service, ws, tab, "Plain")
    two = [{"data": b64(b"a"), "name": "a.png"}, {"data": b64(b"b"), "name": "b.png"}]
    cases = {
        "paths": ({"ref": one, "paths": ["/etc/passwd"]}, "paths are not accepted"),
        "empty": ({"ref": one, "files": []}, "files is empty"),
        "base64": ({"ref": one, "files": [{"data": "%%%", "name": "x.png"}]}, "not valid base64"),
        "single": ({"ref": one, "files": two}, "takes one file"),
        "not a file input": ({"ref": plain, "files": two[:1]}, "is not a file input"),
        "stale": ({"ref": "ref_9999", "files": two[:1]}, "[hop: page]"),
    }
    for name, (arguments, expected) in cases.items():
        outcome = await service.call("file_upload", ws, tabId=tab, **arguments)
        assert outcome.kind == "tool_error", name
        assert expected in text(outcome), (name, text(outcome))
    assert await page_value(service, ws, tab, "[one.files.length, many.files.length]") == [0, 0]
