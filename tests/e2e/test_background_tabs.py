"""Input in a background tab of another workspace, in real headless Chromium.

Workspace tabs are usually not the active tab of their window, so Chrome does not draw them.
A click there must land (read back from the page itself) without activating the tab.
"""

from __future__ import annotations

from typing import Any

import pytest
import trio

from ghostlight_trio.tools.shared.screenshots import jpeg_size

from .conftest import PAGES, Service, open_page, page_value, text
from .test_page_tools import image_of, shot_point

pytestmark = pytest.mark.e2e

WORKSPACES = 4
PAGES["/opener"] = (
    "<title>Opener</title><button onclick=\"window.open('/secret?token=A')\">Pop up</button>"
    " <a href='/secret?token=L' target=_blank>Secret link</a>"
)
PAGES["/secret?token=A"] = PAGES["/secret?token=L"] = "<title>Secret</title><p>workspace A only</p>"


async def is_active(service: Service, ws: str, tab: int) -> bool:
    info = await service.shore.request(ws, "tab_info", {"tabId": tab}, timeout=20)
    return bool(info["active"])


async def targets_in_workspaces(
    service: Service, web: str
) -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
    """The targets page opened in ``WORKSPACES`` new workspaces, one after another: every
    (workspace, tab), and those left in the background (at least one, oldest first)."""
    opened = [await open_page(service, f"{web}/targets") for _ in range(WORKSPACES)]
    background = [(ws, tab) for ws, tab in opened if not await is_active(service, ws, tab)]
    assert background, "expected at least one workspace tab in the background"
    return opened, background


async def centre(service: Service, ws: str, tab: int, element_id: str) -> list[float]:
    """The element's centre in viewport CSS pixels (no screenshot: coordinates are CSS)."""
    box = await page_value(
        service,
        ws,
        tab,
        f"(() => {{ const r = document.getElementById('{element_id}').getBoundingClientRect();"
        " return [r.left + r.width / 2, r.top + r.height / 2]; })()",
    )
    return [float(box[0]), float(box[1])]


async def test_click_and_hover_land_in_a_background_tab_of_another_workspace(
    tools_service: Service, tools_browser: Any, web: str
) -> None:
    service = tools_service
    # Created one after another, each workspace's new tab becomes its window's active tab; the
    # earlier workspaces' tabs are left in the background of that window.
    opened, background = await targets_in_workspaces(service, web)
    ws, tab = background[0]

    clicked = await service.call(
        "computer", ws, tabId=tab, action="left_click", coordinate=await centre(service, ws, tab, "b")
    )
    assert clicked.kind == "ok", text(clicked)
    assert clicked.structured["interactionReceipt"]["target"]["name"] == "Bravo"
    hovered = await service.call(
        "computer", ws, tabId=tab, action="hover", coordinate=await centre(service, ws, tab, "c")
    )
    assert hovered.kind == "ok", text(hovered)

    assert await page_value(service, ws, tab, "hits") == ["b:over", "b:click:1", "c:over"]
    # Nothing was brought to the front: the tab is still a background tab.
    assert not await is_active(service, ws, tab)
    # The other workspaces' pages saw nothing.
    for other_ws, other_tab in opened:
        if other_tab != tab:
            assert await page_value(service, other_ws, other_tab, "hits") == []


async def test_screenshot_of_an_older_background_tab_and_a_click_at_its_coordinates(
    tools_service: Service, tools_browser: Any, web: str
) -> None:
    service = tools_service
    _, background = await targets_in_workspaces(service, web)
    # The oldest one: Chrome keeps only the most recently shown background tabs drawable.
    ws, tab = background[0]

    shot = await service.call("computer", ws, tabId=tab, action="screenshot")
    assert shot.kind == "ok", text(shot)
    assert jpeg_size(image_of(shot)) is not None

    point = await shot_point(service, ws, tab, "b", shot)
    clicked = await service.call("computer", ws, tabId=tab, action="left_click", coordinate=point)
    assert clicked.kind == "ok", text(clicked)
    assert await page_value(service, ws, tab, "hits") == ["b:over", "b:click:1"]
    assert not await is_active(service, ws, tab)


async def test_a_screenshot_after_a_screenshot_maps_clicks_the_same_in_and_out_of_view(
    tools_service: Service, tools_browser: Any, web: str
) -> None:
    """The second screenshot of a tab reads the viewport and captures it at the same time
    (``capture``'s ``last``): in a background tab (drawn by a screencast) and in its window's
    active tab, its image is the first one's size and a click at its coordinates lands."""
    service = tools_service
    opened, background = await targets_in_workspaces(service, web)
    for ws, tab in (background[0], opened[-1]):
        first = await service.call("computer", ws, tabId=tab, action="screenshot")
        assert first.kind == "ok", text(first)
        second = await service.call("computer", ws, tabId=tab, action="screenshot")
        assert second.kind == "ok", text(second)
        assert jpeg_size(image_of(second)) == jpeg_size(image_of(first))
        point = await shot_point(service, ws, tab, "b", second)
        clicked = await service.call(
            "computer", ws, tabId=tab, action="left_click", coordinate=point
        )
        assert clicked.kind == "ok", text(clicked)
        assert clicked.structured["interactionReceipt"]["target"]["name"] == "Bravo"


async def test_a_tab_a_background_workspace_tab_opens_is_that_workspaces_never_the_active_ones(
    tools_service: Service, tools_browser: Any, web: str
) -> None:
    """Chrome links a tab opened from a background tab to the active tab and puts it in the
    active tab's group; ownership follows the page that opened it."""
    service = tools_service
    ws_a, tab_a = await open_page(service, f"{web}/opener")
    ws_b, tab_b = await open_page(service, f"{web}/")  # now the active tab
    assert await is_active(service, ws_b, tab_b) and not await is_active(service, ws_a, tab_a)
    for opening in ("Pop up", "Secret link"):  # window.open, and a target=_blank link
        before = set(service.registry.owned_tabs(ws_a))
        found = await service.call("find", ws_a, tabId=tab_a, query=opening)
        ref = found.structured["results"][0]["ref"]
        clicked = await service.call("computer", ws_a, tabId=tab_a, action="left_click", ref=ref)
        assert clicked.kind == "ok", text(clicked)
        with trio.fail_after(10):
            while len(service.registry.owned_tabs(ws_a)) == len(before):  # noqa: ASYNC110 - the shore adopts it
                await trio.sleep(0.1)
        [opened] = service.registry.owned_tabs(ws_a) - before
        assert opened not in service.registry.owned_tabs(ws_b)
        listed_b = await service.call("tabs_context_mcp", ws_b)
        assert listed_b.kind == "ok", text(listed_b)
        assert [t["tabId"] for t in listed_b.structured["tabs"]] == [tab_b]
        denied = await service.call("get_page_text", ws_b, tabId=opened)
        assert denied.kind == "denied"
        listed_a = await service.call("tabs_context_mcp", ws_a)
        assert listed_a.kind == "ok" and opened in [t["tabId"] for t in listed_a.structured["tabs"]]
