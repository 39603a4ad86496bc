"""wait_for, find and get_page_text on large pages, in same-origin frames and in open shadow
roots, in real headless Chromium with the real extension.

The pages (``/limits/*`` and ``/frames`` in conftest) build their rows themselves; where the
answer depends on the page, the test reads the page back with a direct CDP
``Runtime.evaluate``.
"""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import PAGES, Service, open_page, page_value, text

pytestmark = pytest.mark.e2e

# One element holding 200000 buttons, built by the page itself.
PAGES["/limits/wide"] = """<!doctype html><title>Wide</title><body><h1>Wide</h1><div id="wide"></div>
<script>
const items = document.createDocumentFragment();
for (let i = 0; i < 200000; i++) {
  const item = document.createElement('button');
  item.textContent = 'Item ' + i;
  items.append(item);
}
document.getElementById('wide').append(items);
</script>"""


async def test_wait_for_reads_a_large_page_whole_and_says_when_it_cannot(
    more_service: Service, more_browser: Any, web: str
) -> None:
    service = more_service
    ws, tab = await open_page(service, f"{web}/limits/late")
    assert await page_value(service, ws, tab, "document.querySelectorAll('*').length") > 24000

    present = await service.call(
        "wait_for", ws, tabId=tab, text="very LAST line", state="present", timeout_ms=3000
    )
    assert present.structured["found"] is True, text(present)
    gone = await service.call(
        "wait_for", ws, tabId=tab, text="very last line", state="gone", timeout_ms=600
    )
    assert gone.structured["found"] is False, text(gone)
    assert "1 matching element(s), 1 visible." in text(gone)
    absent = await service.call(
        "wait_for", ws, tabId=tab, text="not on this page", state="gone", timeout_ms=600
    )
    assert absent.structured["found"] is True, text(absent)
    assert "Could not check" not in text(absent)

    # More elements than one observation reads: an absence is never reported from part of it.
    ws, tab = await open_page(service, f"{web}/limits/huge", ws)
    assert await page_value(service, ws, tab, "document.querySelectorAll('*').length") > 210000
    # Room for one observation of 200000 elements on a busy machine (it takes about a second).
    huge = await service.call(
        "wait_for", ws, tabId=tab, text="very last line", state="gone", timeout_ms=5000
    )
    assert huge.kind == "ok" and huge.structured["found"] is False, text(huge)
    assert "Could not check the whole page (200000 elements searched" in text(huge)

    blank = await service.call("wait_for", ws, tabId=tab, text="   ", timeout_ms=600)
    assert blank.kind == "tool_error" and "text is blank" in text(blank)


async def test_wait_for_looks_into_same_origin_frames_and_open_shadow_roots(
    more_service: Service, more_browser: Any, web: str
) -> None:
    service = more_service
    ws, tab = await open_page(service, f"{web}/frames")
    in_frame = await service.call("wait_for", ws, tabId=tab, text="frame GO", timeout_ms=3000)
    assert in_frame.structured["found"] is True, text(in_frame)
    assert 'button "Frame go"' in text(in_frame)
    by_selector = await service.call("wait_for", ws, tabId=tab, selector="#framego")
    assert by_selector.structured["found"] is True, text(by_selector)
    assert by_selector.structured["ref"] == in_frame.structured["ref"]
    in_shadow = await service.call("wait_for", ws, tabId=tab, selector="#shadowgo", text="go")
    assert in_shadow.structured["found"] is True, text(in_shadow)
    assert 'button "Shadow go"' in text(in_shadow)
    opaque = await service.call(
        "wait_for", ws, tabId=tab, text="Hidden from us", state="present", timeout_ms=600
    )
    assert opaque.structured["found"] is False, text(opaque)


async def test_find_covers_every_row_and_page_text_reads_open_shadow_roots(
    more_service: Service, more_browser: Any, web: str
) -> None:
    service = more_service
    ws, tab = await open_page(service, f"{web}/limits/rows")
    assert await page_value(service, ws, tab, "document.querySelectorAll('*').length") > 30000

    last = await service.call("find", ws, tabId=tab, query="Btn 9999")
    assert last.kind == "ok", text(last)
    assert last.structured["results"][0]["name"] == "Btn 9999", text(last)
    buttons = await service.call("find", ws, tabId=tab, query="button")
    assert "[10000 elements matched;" in text(buttons), text(buttons)

    ws, tab = await open_page(service, f"{web}/limits/shadow", ws)
    got = await service.call("get_page_text", ws, tabId=tab)
    assert got.kind == "ok", text(got)
    body = text(got)
    order = [
        "Before the card",
        "Shadow Button",
        "pre",
        "slotted light words",
        "post",
        "shadow paragraph text",
        "After the card",
    ]
    at = [body.index(part) for part in order]
    assert at == sorted(at), body
    assert body.count("slotted light words") == 1 and ":host" not in body


async def test_read_page_lists_the_controls_in_view_on_a_page_too_large_to_walk_whole(
    more_service: Service, more_browser: Any, web: str
) -> None:
    service = more_service
    ws, tab = await open_page(service, f"{web}/limits/rows")  # 30005 elements
    await page_value(service, ws, tab, "scrollTo(0, document.body.scrollHeight); true")
    shown = await service.call("read_page", ws, tabId=tab, filter="interactive")
    said = text(shown)
    assert shown.kind == "ok", said
    assert 'button "Btn 9999"' in said, said[-600:]
    assert "(no matching elements" not in said
    assert "controls were checked one by one" in said
    assert 'button "Btn 10"' not in said  # far above the viewport: not listed
    # The middle of the page, past where a walk from the top stops.
    await page_value(service, ws, tab, "scrollTo(0, document.body.scrollHeight * 0.7); true")
    middle = text(await service.call("read_page", ws, tabId=tab, filter="interactive"))
    assert 'button "Btn 7' in middle, middle[-600:]


async def test_read_page_answers_on_an_element_with_200000_children(
    more_service: Service, more_browser: Any, web: str
) -> None:
    """Listing an element's children never takes them as one call's arguments (past what the
    stack holds): the page is read as far as the limits go, and the answer says it was cut."""
    service = more_service
    ws, tab = await open_page(service, f"{web}/limits/wide")
    assert await page_value(service, ws, tab, "document.getElementById('wide').children.length") == 200000
    read = await service.call("read_page", ws, tabId=tab)
    said = text(read)
    assert read.kind == "ok", said[:600]
    assert 'heading "Wide"' in said and 'button "Item 0" [ref_' in said, said[:600]
    assert "[element cap reached: examined 20000 elements;" in said, said[-800:]
    assert "output reached max_chars=50000" in said, said[-800:]
    assert len(said) < 52000
    # The interactive view (controls in view, found one by one on a page this large) answers.
    shown = await service.call("read_page", ws, tabId=tab, filter="interactive")
    assert shown.kind == "ok" and 'button "Item 0"' in text(shown), text(shown)[-600:]
