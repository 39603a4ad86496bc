"""Closed shadow roots in real headless Chromium: hidden from the page's own scripts, not from
the user, who sees and clicks what they hold; so the tools read, find, fill and watch them too.
"""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import PAGES, Service, open_page, page_value, text

pytestmark = pytest.mark.e2e

PAGES["/shadow/closed"] = """<!doctype html><title>Closed widget</title>
<h1>Account</h1>
<closed-widget id="w"></closed-widget>
<script>
window.events = [];
customElements.define('closed-widget', class extends HTMLElement {
  constructor() {
    super();
    const root = this.attachShadow({mode: 'closed'});
    root.innerHTML = '<p id="para">Closed shadow paragraph</p>'
      + '<label>Closed Phone <input id="phone"></label>'
      + '<button id="b">Closed Button</button>';
    root.getElementById('b').onclick = () => window.events.push('clicked');
    root.getElementById('phone').oninput = (e) => { window.phone = e.target.value; };
  }
});
</script>"""


async def test_what_a_closed_shadow_root_shows_is_read_found_filled_and_watched(
    extended_service: Service, extended_browser: Any, web: str
) -> None:
    service = extended_service
    ws, tab = await open_page(service, f"{web}/shadow/closed")
    assert await page_value(service, ws, tab, "document.getElementById('w').shadowRoot") is None

    page_text = await service.call("get_page_text", ws, tabId=tab)
    assert "Closed shadow paragraph" in text(page_text), text(page_text)
    snapshot = await service.call("read_page", ws, tabId=tab, filter="all")
    assert 'button "Closed Button"' in text(snapshot), text(snapshot)

    found = await service.call("find", ws, tabId=tab, query="Closed Button")
    assert found.kind == "ok" and found.structured["results"], text(found)
    ref = found.structured["results"][0]["ref"]
    clicked = await service.call("computer", ws, tabId=tab, action="left_click", ref=ref)
    assert clicked.kind == "ok", text(clicked)
    assert await page_value(service, ws, tab, "window.events") == ["clicked"]

    filled = await service.call("form_fill", ws, tabId=tab, fields={"Closed Phone": "555-0101"})
    assert filled.kind == "ok" and "unmatched" not in text(filled), text(filled)
    assert await page_value(service, ws, tab, "window.phone") == "555-0101"

    waited = await service.call(
        "wait_for", ws, tabId=tab, text="Closed shadow paragraph", state="gone", timeout_ms=300
    )
    # It is on the screen, so it is not gone.
    assert text(waited).startswith("Not met") and "1 visible" in text(waited), text(waited)
