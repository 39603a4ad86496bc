"""A click that starts a navigation to a slow server: the answers say the tab is on its way to
another page, instead of presenting the page it is leaving as the current, settled one. Real
headless Chromium, the real extension, a loopback server that takes its time."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import trio

from ghostlight_trio.transport.bridge import RequestContext, Start

from .conftest import (
    PAGES,
    UNANSWERED_SECONDS,
    Service,
    held_page_server,
    open_page,
    tab_info,
    text,
)

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
    # Where it goes is the page's to say (a link, a script): only inside the fence.
    assert f'\n{{"pendingUrl": "{web}/unanswered"}}\n--- END GHOSTLIGHT' in text(waited)
    assert "/unanswered" not in text(waited).split("--- GHOSTLIGHT PAGE CONTENT")[0]
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


@pytest.fixture
def unhurried_site() -> Iterator[str]:
    """A loopback server whose ``/late`` page takes 30 s to come (released at teardown)."""
    with held_page_server("/late", 30) as (port, _asked):
        yield f"http://127.0.0.1:{port}"


async def test_reading_a_blank_tab_on_its_way_to_a_page_says_it_is_on_its_way(
    extended_service: Service, extended_browser: Any, unhurried_site: str
) -> None:
    """A new tab still shows about:blank while its first page has not come: a read is told that
    the page is on its way, not to navigate somewhere first."""
    service = extended_service
    created = await service.call("tabs_create_mcp", None)
    ws, tab = created.workspace_id, created.structured["tabId"]
    went = await service.call("navigate", ws, url=f"{unhurried_site}/late", tabId=tab)
    assert went.kind == "ok", text(went)
    assert (await tab_info(service, ws, tab))["pendingUrl"] == f"{unhurried_site}/late"
    for tool in ("read_page", "get_page_text", "find"):
        arguments: dict[str, Any] = {"query": "late"} if tool == "find" else {}
        read = await service.call(tool, ws, tabId=tab, **arguments)
        said = text(read)
        assert read.kind == "tool_error", said
        assert f"navigating to {unhurried_site}/late, which has not loaded yet" in said, said
        assert "navigate the tab to a web page" not in said, said


async def test_a_cancelled_navigation_frees_its_tab_at_once_and_goes_on(
    extended_service: Service, extended_browser: Any, unhurried_site: str
) -> None:
    """A caller that cancels a navigation to a slow page is not made to wait for that page on
    its next call: the browser stops waiting for the load (the navigation itself goes on)."""
    service = extended_service
    created = await service.call("tabs_create_mcp", None)
    ws, tab = created.workspace_id, created.structured["tabId"]
    started = service.session.start(
        Start(
            sequence=10_000,
            operation="navigate",
            arguments={"url": f"{unhurried_site}/late", "tabId": tab},
            workspace_id=ws,
            context=RequestContext(client_label="e2e"),
        )
    )
    with trio.fail_after(15):
        while (await tab_info(service, ws, tab)).get("pendingUrl") != f"{unhurried_site}/late":  # noqa: ASYNC110
            await trio.sleep(0.1)
    service.session.cancel(started.work_id)
    # Hang guard well inside the 10 s the extension would otherwise wait for the page.
    read = await service.call("get_page_text", ws, tabId=tab, within=5)
    assert f"navigating to {unhurried_site}/late, which has not loaded yet" in text(read), text(read)
    assert service.sink.outcomes[started.work_id].kind == "cancelled"
