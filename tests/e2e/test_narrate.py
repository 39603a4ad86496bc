"""narrate in real headless Chromium: the caption is drawn where it says, replaced, removed on
time, and invisible to the page's scripts and to the page reading tools."""

from __future__ import annotations

from typing import Any

import pytest
import trio

from .conftest import Service, open_page, page_value, text

pytestmark = pytest.mark.e2e

CAPTIONS = "document.querySelectorAll('ghostlight-narration').length"
EDGE = (
    "(() => { const r = document.querySelector('ghostlight-narration').getBoundingClientRect();"
    " return [r.top === 0, Math.round(r.bottom) === innerHeight]; })()"
)


async def test_a_caption_is_shown_replaced_and_removed_on_time(
    extended_service: Service, extended_browser: Any, web: str
) -> None:
    service = extended_service
    ws, tab = await open_page(service, f"{web}/")
    first = await service.call("narrate", ws, tabId=tab, text="Reading the page", duration_ms=5000)
    assert first.kind == "ok", text(first)
    assert text(first) == "Narration shown at bottom for 5000ms."
    assert first.structured == {"shown": True, "position": "bottom", "duration_ms": 5000, "replaced": False}
    assert await page_value(service, ws, tab, CAPTIONS) == 1
    assert await page_value(service, ws, tab, EDGE) == [False, True]
    # The page's own scripts cannot read the words; the reading tools do not see them.
    assert await page_value(service, ws, tab, "document.querySelector('ghostlight-narration').shadowRoot") is None
    read = await service.call("get_page_text", ws, tabId=tab)
    assert "Reading the page" not in text(read)
    found = await service.call("find", ws, tabId=tab, query="Reading the page")
    assert "Reading the page" not in str(found.structured["results"])

    second = await service.call(
        "narrate", ws, tabId=tab, text="Now clicking next", position="top", duration_ms=1000
    )
    assert second.structured["replaced"] is True and second.structured["position"] == "top"
    assert await page_value(service, ws, tab, CAPTIONS) == 1
    assert await page_value(service, ws, tab, EDGE) == [True, False]
    with trio.move_on_after(4):  # gone after its 1000 ms, late timers allowed; the default is 5 s
        while await page_value(service, ws, tab, CAPTIONS) != 0:  # noqa: ASYNC110 - the page's state
            await trio.sleep(0.1)
    assert await page_value(service, ws, tab, CAPTIONS) == 0


async def test_where_it_cannot_be_drawn_the_answer_says_so_and_why(
    extended_service: Service, extended_browser: Any
) -> None:
    service = extended_service
    created = await service.call("tabs_create_mcp")  # a new tab shows about:blank
    ws, tab = created.workspace_id, created.structured["tabId"]
    outcome = await service.call("narrate", ws, tabId=tab, text="Starting")
    assert text(outcome).startswith("Narration not shown: ")
    assert outcome.structured["shown"] is False and outcome.structured["reason"]


async def test_blank_text_is_a_tool_error_and_nothing_is_drawn(
    extended_service: Service, extended_browser: Any, web: str
) -> None:
    service = extended_service
    ws, tab = await open_page(service, f"{web}/")
    outcome = await service.call("narrate", ws, tabId=tab, text="   ")
    assert outcome.kind == "tool_error", text(outcome)
    assert text(outcome) == "narrate needs some text to show; nothing was shown."
    assert await page_value(service, ws, tab, CAPTIONS) == 0


async def test_a_page_rule_cannot_hide_the_caption(
    extended_service: Service, extended_browser: Any, web: str
) -> None:
    service = extended_service
    ws, tab = await open_page(service, f"{web}/")
    hide = (
        "const s = document.createElement('style');"
        " s.textContent = 'ghostlight-narration { display: none !important; opacity: 0 !important }';"
        " document.head.appendChild(s); 1"
    )
    await page_value(service, ws, tab, hide)
    shown = await service.call("narrate", ws, tabId=tab, text="Still here")
    assert shown.structured["shown"] is True, text(shown)
    drawn = "getComputedStyle(document.querySelector('ghostlight-narration')).display"
    assert await page_value(service, ws, tab, drawn) == "block"
