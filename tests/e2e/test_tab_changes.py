"""A call's answer names the tab its page opened, in real Chromium: the agent learns the new
tab's id from the click itself."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
import trio

from ghostlight_trio.tools.registry import ToolDeps, tool_handlers
from ghostlight_trio.transport.endpoints import Endpoints

from .conftest import QuietHandler, Service, launched_for, loopback_server, serve, text
from .devtools import DEVTOOLS_FLAGS, in_extension_worker

pytestmark = pytest.mark.e2e

OPENER = """<!doctype html><title>Opener</title>
<a id="pop" href="/child" target="_blank" style="display:block;padding:40px">open a child</a>"""


class _Pages(QuietHandler):
    def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
        body = OPENER if self.path == "/" else "<title>Child page</title><p>child</p>"
        self.send_html(body.encode())


@pytest.fixture
def pages() -> Iterator[str]:
    with loopback_server(_Pages) as port:
        yield f"http://127.0.0.1:{port}"


@pytest.fixture
async def noting_service(endpoints: Endpoints, nursery: trio.Nursery) -> AsyncIterator[Service]:
    def tools(registry: Any, shore: Any) -> dict[str, Any]:
        every = tool_handlers(ToolDeps(shore, registry, journal=shore.tab_journal))
        return {name: every[name] for name in ("tabs_context_mcp", "tabs_create_mcp", "navigate", "act_on")}

    yield await serve(endpoints, nursery, tools)


async def test_a_click_that_opens_a_tab_names_it_and_the_agent_can_use_it(
    noting_service: Service, pages: str
) -> None:
    service = noting_service
    async with launched_for(service):
        created = await service.call("tabs_create_mcp")
        ws, tab = created.workspace_id, created.structured["tabId"]
        went = await service.call("navigate", ws, url=f"{pages}/", tabId=tab)
        assert went.kind == "ok", text(went)
        clicked = await service.call("act_on", ws, tabId=tab, target={"query": "open a child"}, action="left_click")
        assert clicked.kind == "ok", text(clicked)
        delta = clicked.structured["tabDelta"]
        [opened] = delta["opened"]
        child = opened["tabId"]
        assert child != tab and delta["closed"] == [] and delta["more"] is False
        assert f"Tab {child} opened from this tab during the call" in text(clicked)
        assert service.registry.verify_tab(ws, child)
        there = await service.call("navigate", ws, url=f"{pages}/", tabId=child)
        assert there.kind == "ok", text(there)

        again = await service.call("navigate", ws, url=f"{pages}/", tabId=tab)
        assert "tabDelta" not in (again.structured or {}), "only what happened during this call"


async def test_a_tab_opened_while_the_user_s_own_tab_is_active_is_named_too(
    noting_service: Service, pages: str
) -> None:
    """Chrome links a tab opened from a background tab to the active tab; when that is the
    user's own tab (in no workspace), the page that opened it still decides, and the click's
    answer names it."""
    service = noting_service
    async with launched_for(service, *DEVTOOLS_FLAGS) as launched:
        created = await service.call("tabs_create_mcp")
        ws, tab = created.workspace_id, created.structured["tabId"]
        went = await service.call("navigate", ws, url=f"{pages}/", tabId=tab)
        assert went.kind == "ok", text(went)
        await in_extension_worker(
            launched.profile, f"chrome.tabs.create({{url: {pages + '/'!r}, active: true}}).then(() => true)"
        )
        clicked = await service.call("act_on", ws, tabId=tab, target={"query": "open a child"}, action="left_click")
        assert clicked.kind == "ok", text(clicked)
        [opened] = clicked.structured["tabDelta"]["opened"]
        assert f"Tab {opened['tabId']} opened from this tab during the call" in text(clicked)
        assert service.registry.verify_tab(ws, opened["tabId"])
