"""A click that starts a navigation to a slow server: the answers say the tab is on its way to
another page, instead of presenting the page it is leaving as the current, settled one. Real
headless Chromium, the real extension, a loopback server that takes its time."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import PAGES, UNANSWERED_SECONDS, Service, open_page, tab_info, text

pytestmark = pytest.mark.e2e

PAGES["/leaving"] = (
    "<!doctype html><title>Leaving</title><h1>Start</h1><a id=go href='/unanswered'>Go on</a>"
)


async def test_a_click_into_a_slow_navigation_is_said_to_be_under_way(
    extended_service: Service, extended_browser: Any, web: str
) -> None:
    service = extended_service
    ws, tab = await open_page(service, f"{web}/leaving")
    clicked = await service.call("act_on", ws, tabId=tab, action="left_click", target={"name": "Go on"})
    assert clicked.kind == "ok", text(clicked)
    observed = clicked.structured["interactionReceipt"]["observedAfter"]
    assert observed["navigationPending"] == f"{web}/unanswered"
    assert f"a navigation to {web}/unanswered started and has not loaded yet" in text(clicked)

    # The page being left is quiet, but the tab has not settled: it is on its way.
    waited = await service.call("wait_for", ws, tabId=tab, state="settled", timeout_ms=1500)
    assert waited.kind == "ok", text(waited)
    assert waited.structured["found"] is False and waited.structured["settled"] is False
    assert waited.structured["pendingUrl"] == f"{web}/unanswered"
    assert "The tab is navigating to" in text(waited)
    assert (await tab_info(service, ws, tab))["pendingUrl"] == f"{web}/unanswered"
    listed = await service.call("tabs_context_mcp", ws)
    assert listed.structured["tabs"] == [
        {"tabId": tab, "title": "Leaving", "url": f"{web}/leaving", "pendingUrl": f"{web}/unanswered"}
    ]

    # Once the server answers, the new page is the tab's and nothing is pending any more.
    arrived = await service.call(
        "wait_for", ws, tabId=tab, state="settled", timeout_ms=int(UNANSWERED_SECONDS * 1000 + 8000)
    )
    assert arrived.structured["found"] is True, text(arrived)
    assert "pendingUrl" not in arrived.structured
    assert "pendingUrl" not in await tab_info(service, ws, tab)
