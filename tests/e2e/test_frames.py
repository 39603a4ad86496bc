"""Same-origin frames and shadow DOM through the page tools, in real headless Chromium.

The page (``/frames`` in conftest) holds a same-origin iframe placed at an offset with a border
and padding, a sandboxed (opaque-origin, so cross-origin) frame, and a custom element with an
open shadow root. Every effect is read back by the test itself with a direct CDP
``Runtime.evaluate`` in the top document, never from the tool's own echo.
"""

from __future__ import annotations

from typing import Any

import pytest
import trio

from .conftest import Service, open_page, page_value, text
from .test_page_tools import ref_for

pytestmark = pytest.mark.e2e

INNER = "document.getElementById('inner').contentDocument"
INNER_WINDOW = "document.getElementById('inner').contentWindow"
SHADOW = "document.getElementById('host').shadowRoot"


async def test_frame_and_shadow_elements_are_read_found_set_and_clicked_by_ref(
    tools_service: Service, tools_browser: Any, web: str
) -> None:
    service = tools_service
    ws, tab = await open_page(service, f"{web}/frames")

    read = await service.call("read_page", ws, tabId=tab)
    assert read.kind == "ok", text(read)
    tree = text(read)
    frame_line = next(line for line in tree.splitlines() if 'iframe "Inner form"' in line)
    heading = next(line for line in tree.splitlines() if 'heading "Delivery"' in line)
    # The frame's elements sit one level under the frame's own line.
    indent = len(frame_line) - len(frame_line.lstrip())
    assert len(heading) - len(heading.lstrip()) == indent + 1, tree
    assert 'textbox "City"' in tree and 'button "Frame go"' in tree
    opaque = next(line for line in tree.splitlines() if 'iframe "Sandboxed widget"' in line)
    assert "(cross-origin: contents not readable)" in opaque
    assert "cross-origin frame(s) shown as opaque" in tree
    assert "Hidden from us" not in tree
    assert 'textbox "Nickname"' in tree and 'button "Shadow go"' in tree

    # form_input by refs inside the frame and inside the shadow root.
    for fragment, value in (
        ('textbox "City"', "Lyon"),
        ('checkbox "Gift wrap"', True),
        ('combobox "Speed"', "Express"),
        ('textbox "Nickname"', "Ghost"),
    ):
        done = await service.call(
            "form_input", ws, tabId=tab, ref=ref_for(tree, fragment), value=value
        )
        assert done.kind == "ok", text(done)
    state = await page_value(
        service,
        ws,
        tab,
        f"({{city: {INNER}.getElementById('city').value,"
        f" gift: {INNER}.getElementById('gift').checked,"
        f" speed: {INNER}.getElementById('speed').value,"
        f" nick: {SHADOW}.getElementById('nick').value}})",
    )
    assert state == {"city": "Lyon", "gift": True, "speed": "exp", "nick": "Ghost"}

    # find inside the frame: the centre is in the top viewport's CSS px (frame offset,
    # border and padding included), as measured by the page itself.
    found = await service.call("find", ws, tabId=tab, query="Frame go")
    assert found.kind == "ok", text(found)
    best = found.structured["results"][0]
    assert best["name"] == "Frame go"
    real = await page_value(
        service,
        ws,
        tab,
        "(() => { const f = document.getElementById('inner'); const s = getComputedStyle(f);"
        f" const b = {INNER}.getElementById('framego').getBoundingClientRect();"
        " const r = f.getBoundingClientRect();"
        " return [r.left + f.clientLeft + parseFloat(s.paddingLeft) + b.left + b.width / 2,"
        " r.top + f.clientTop + parseFloat(s.paddingTop) + b.top + b.height / 2]; })()",
    )
    assert abs(best["x"] - real[0]) <= 1 and abs(best["y"] - real[1]) <= 1, (best, real)

    # A real click (CDP input at the ref's top-viewport point) lands inside the frame.
    clicked = await service.call("computer", ws, tabId=tab, action="left_click", ref=best["ref"])
    assert clicked.kind == "ok", text(clicked)
    receipt = clicked.structured["interactionReceipt"]
    assert receipt["targetAssurance"] == "ref" and receipt["target"]["name"] == "Frame go"
    counts = await page_value(
        service, ws, tab, f"[{INNER_WINDOW}.frameClicks || 0, window.decoyClicks || 0]"
    )
    assert counts == [1, 0]

    # The same by a ref from read_page's interactive view, and in the shadow root.
    interactive = await service.call("read_page", ws, tabId=tab, filter="interactive")
    assert interactive.kind == "ok", text(interactive)
    listed = text(interactive)
    assert 'textbox "City"' in listed and "Hidden from us" not in listed
    again = ref_for(listed, 'button "Frame go"')
    clicked = await service.call("computer", ws, tabId=tab, action="left_click", ref=again)
    assert clicked.kind == "ok", text(clicked)
    shadow_go = ref_for(listed, 'button "Shadow go"')
    clicked = await service.call("computer", ws, tabId=tab, action="left_click", ref=shadow_go)
    assert clicked.kind == "ok", text(clicked)
    counts = await page_value(
        service,
        ws,
        tab,
        f"[{INNER_WINDOW}.frameClicks || 0, window.decoyClicks || 0,"
        " Number(document.getElementById('host').dataset.clicks || 0)]",
    )
    assert counts == [2, 0, 1]

    # A ref into a frame whose document was replaced is reported stale, never reapplied.
    city = ref_for(tree, 'textbox "City"')
    await page_value(
        service, ws, tab, "document.getElementById('inner').srcdoc = '<p>replaced</p>'; true"
    )
    for _ in range(50):
        if await page_value(service, ws, tab, f"{INNER}.body.textContent") == "replaced":
            break
        await trio.sleep(0.1)
    stale = await service.call("form_input", ws, tabId=tab, ref=city, value="Paris")
    assert stale.kind == "tool_error", text(stale)
    assert "[hop: page]" in text(stale) and "stale" in text(stale)


async def test_page_text_includes_same_origin_frame_text_and_counts_opaque_frames(
    tools_service: Service, tools_browser: Any, web: str
) -> None:
    service = tools_service
    ws, tab = await open_page(service, f"{web}/frames")
    got = await service.call("get_page_text", ws, tabId=tab)
    assert got.kind == "ok", text(got)
    body = text(got)
    assert "Source element: body, then the text of 1 frame(s) in it" in body
    section = body.index('[Frame "Inner form"]')
    assert body.index("Delivery", section) > section and "Gift wrap" in body[section:]
    assert "[1 cross-origin frame(s) not read" in body
    assert "Hidden from us" not in body
