"""resize_window sets one tab's viewport: workspaces share browser windows, so a resize must
not change the size, layout or screenshot coordinates of anyone else's tabs."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import Service, open_page, page_value, text

pytestmark = pytest.mark.e2e

SIZE = "[innerWidth, innerHeight]"


async def test_a_resize_is_this_tabs_alone_and_the_page_has_the_size_asked(
    tools_service: Service, tools_browser: Any, web: str
) -> None:
    service = tools_service
    ws_a, tab_a = await open_page(service, f"{web}/form")
    ws_b, tab_b = await open_page(service, f"{web}/form")
    before = await page_value(service, ws_a, tab_a, SIZE)

    resized = await service.call("resize_window", ws_b, tabId=tab_b, width=640, height=480)
    assert resized.kind == "ok", text(resized)
    assert await page_value(service, ws_b, tab_b, SIZE) == [640, 480]
    assert await page_value(service, ws_a, tab_a, SIZE) == before
    created = await service.call("tabs_create_mcp", ws_a)
    fresh = created.structured["tabId"]
    await service.call("navigate", ws_a, tabId=fresh, url=f"{web}/form")
    # A new tab opens at the window's own size (its height may differ from an older tab's by
    # Chrome's own bars), never at the size another workspace set for its tab.
    fresh_size = await page_value(service, ws_a, fresh, SIZE)
    assert fresh_size[0] == before[0] and fresh_size != [640, 480], (fresh_size, before)

    # A tab in the background of its window gets its size too, and small sizes are exact.
    small = await service.call("resize_window", ws_a, tabId=tab_a, width=320, height=200)
    assert small.kind == "ok", text(small)
    assert await page_value(service, ws_a, tab_a, SIZE) == [320, 200]
    shot = await service.call("computer", ws_a, tabId=tab_a, action="screenshot")
    assert shot.kind == "ok", text(shot)
    assert "320x200" in text(shot)

    refused = await service.call("resize_window", ws_a, tabId=tab_a, width=40, height=200)
    assert refused.kind == "tool_error"
    assert text(refused) == "width and height must be between 100 and 16384 pixels; got 40x200."
    assert await page_value(service, ws_a, tab_a, SIZE) == [320, 200]
