"""An action's receipt is taken once the page has come to rest, and says what the page did:
a change a moment after the click, content a request brought, a navigation, or a page that
never stopped changing. Real headless Chromium, the real extension, loopback pages."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import PAGES, Service, open_page, text

pytestmark = pytest.mark.e2e

PAGES["/rest"] = """<!doctype html><title>Rest</title>
<button onclick="setTimeout(() => document.body.append(Object.assign(document.createElement('p'),
  {textContent: 'shown a moment later'})), 4)">Soon</button>
<button onclick="fetch('/late-answer').then(r => r.text()).then(t =>
  document.body.append(Object.assign(document.createElement('p'), {textContent: t})))">Fetch</button>
<button onclick="const tick = () => { document.getElementById('clock').textContent = performance.now(); };
  setInterval(tick, 1); (function frame() { tick(); requestAnimationFrame(frame); })()">Spin</button>
<button onclick="document.title = 'Clicked'">Plain</button>
<a href="/rest-next">Next page</a>
<p id=clock></p>"""
PAGES["/rest-next"] = "<!doctype html><title>Next</title><p>arrived"


async def _click(service: Service, web: str, name: str) -> tuple[Any, dict[str, Any]]:
    """The rest page opened in a new workspace, and the button or link ``name`` clicked."""
    ws, tab = await open_page(service, f"{web}/rest")
    clicked = await service.call("act_on", ws, tabId=tab, action="left_click", target={"name": name})
    assert clicked.kind == "ok", text(clicked)
    return clicked, clicked.structured["interactionReceipt"]["observedAfter"]


async def test_a_change_right_after_a_click_is_in_its_receipt(
    extended_service: Service, extended_browser: Any, web: str
) -> None:
    clicked, observed = await _click(extended_service, web, "Soon")
    assert observed["mutations"] >= 1 and observed["settled"] is True, observed
    assert "DOM mutation" in text(clicked)


async def test_what_a_request_of_the_click_brought_is_waited_for(
    extended_service: Service, extended_browser: Any, web: str
) -> None:
    clicked, observed = await _click(extended_service, web, "Fetch")
    # The answer comes 250 ms after the click, far past the quiet window: only waiting for
    # the request the click started sees what it brought.
    assert observed["mutations"] >= 1 and observed["settled"] is True, observed
    assert "DOM mutation" in text(clicked)


async def test_a_navigation_a_click_caused_is_named(
    extended_service: Service, extended_browser: Any, web: str
) -> None:
    clicked, observed = await _click(extended_service, web, "Next page")
    assert observed["urlChanged"] == f"{web}/rest-next", observed
    assert observed["newDocument"] is True and observed["titleChanged"] == "Next"
    assert f"URL changed to {web}/rest-next" in text(clicked)


async def test_a_page_that_never_stops_moving_is_said_to_be_moving(
    extended_service: Service, extended_browser: Any, web: str
) -> None:
    clicked, observed = await _click(extended_service, web, "Spin")
    assert observed["settled"] is False and observed["stillChanging"] is True, observed
    assert "the page was still changing 600 ms after the action" in text(clicked)


async def test_a_page_at_rest_is_said_to_be_at_rest(
    extended_service: Service, extended_browser: Any, web: str
) -> None:
    clicked, observed = await _click(extended_service, web, "Plain")
    assert observed["settled"] is True and observed["titleChanged"] == "Clicked", observed
    assert "still changing" not in text(clicked)
