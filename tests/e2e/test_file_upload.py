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
        "/upload/button": """<!doctype html><title>Upload by button</title>
<div class="uploader"><button onclick="document.getElementById('pick').click()">Upload photo</button>
<input id="pick" name="photo" type="file" accept=".png,image/png" hidden></div>
<p id="got"></p>
<script>
document.getElementById('pick').addEventListener('change', (e) => {
  document.getElementById('got').textContent = [...e.target.files].map((f) => f.name).join(',');
});
</script>""",
        "/upload/two": """<!doctype html><title>Two inputs</title>
<button>Upload</button><input type="file" hidden><input type="file" hidden>""",
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


async def test_an_upload_button_over_a_hidden_input_takes_the_files_and_says_which_input(
    extended_service: Service, extended_browser: Any, web: str
) -> None:
    """The common pattern: a button that opens a hidden file input by script. The button's ref
    reaches the one input that goes with it, and the answer names that input; a file the
    input's accept list leaves out is noted. With two inputs it is never a guess."""
    service = extended_service
    ws, tab = await open_page(service, f"{web}/upload/button")
    button = await ref_of(service, ws, tab, "Upload photo")
    png = {"data": b64(b"\x89PNG"), "name": "me.png", "mimeType": "image/png"}
    outcome = await service.call("file_upload", ws, tabId=tab, ref=button, files=[png])
    assert outcome.kind == "ok", text(outcome)
    assert text(outcome).startswith(
        "Uploaded 1 file(s) to the file input <input type=file name='photo' id='pick'> (hidden)"
        f" next to it, as {button} is not one itself: me.png"
    )
    assert "Note:" not in text(outcome)
    assert await page_value(service, ws, tab, "document.getElementById('got').textContent") == "me.png"
    notes = {"data": b64(b"text"), "name": "notes.txt", "mimeType": "text/plain"}
    odd = await service.call("file_upload", ws, tabId=tab, ref=button, files=[notes])
    assert odd.kind == "ok", text(odd)
    assert "Note: the input accepts '.png,image/png', which notes.txt (text/plain) do(es) not" in text(odd)

    ws2, tab2 = await open_page(service, f"{web}/upload/two")
    two = await ref_of(service, ws2, tab2, "Upload")
    refused = await service.call("file_upload", ws2, tabId=tab2, ref=two, files=[png])
    assert refused.kind == "tool_error", text(refused)
    assert "no one file input goes with it" in text(refused)
