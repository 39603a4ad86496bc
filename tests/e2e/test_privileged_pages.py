"""The browser's own pages and its extensions' are out of an agent's reach, all-open included:
navigating there is refused by the service, and the extension itself refuses to read, script or
drive a tab found there (the user took it there), whatever the service asks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ghostlight_trio.browser.errors import BrowserError
from ghostlight_trio.governance.sources import PolicyFiles
from ghostlight_trio.workspace.tab_ids import split_tab_id

from .conftest import Service, launched_for, page_tools, text
from .devtools import DEVTOOLS_FLAGS, in_extension_worker
from .test_governance import _governed_service, _live_url, _tab

pytestmark = pytest.mark.e2e

EXTENSION_ID = (Path(__file__).parents[2] / "extension" / "extension-id.txt").read_text().strip()
OWN_PAGE = f"chrome-extension://{EXTENSION_ID}/manifest.json"
ALL_OPEN = PolicyFiles(org=None, user=None, settings=None)


async def _open_service(endpoints, nursery) -> Service:
    return await _governed_service(endpoints, nursery, ALL_OPEN, page_tools)


async def test_navigate_to_the_extensions_own_page_then_script_is_refused_all_open(
    endpoints, nursery, web
):
    service = await _open_service(endpoints, nursery)
    async with launched_for(service):
        ws, tab = await _tab(service)
        assert (await service.call("navigate", ws, url=f"{web}/second", tabId=tab)).kind == "ok"
        for url in (OWN_PAGE, "chrome://settings"):  # a third denial would pause the workspace
            refused = await service.call("navigate", ws, url=url, tabId=tab)
            assert refused.kind == "denied", text(refused)
            assert text(refused).startswith("Denied (D-") and "never opened" in text(refused)
        assert await _live_url(service, ws, tab) == f"{web}/second"
        ran = await service.call(
            "javascript_tool", ws, tabId=tab, action="javascript_exec",
            text="typeof chrome === 'object' && chrome.tabs ? 'privileged' : location.protocol",
        )  # fmt: skip
        assert ran.kind == "ok" and "http:" in text(ran) and "privileged" not in text(ran)


async def test_the_extension_refuses_a_tab_the_user_took_to_its_own_page(endpoints, nursery, web):
    """The service's rule bypassed (the user navigated the tab, or the service asks directly):
    the extension neither scripts, reads nor captures the page, and its own navigate refuses
    the way there."""
    service = await _open_service(endpoints, nursery)
    async with launched_for(service, *DEVTOOLS_FLAGS) as launched:
        ws, tab = await _tab(service)
        assert (await service.call("navigate", ws, url=f"{web}/second", tabId=tab)).kind == "ok"
        with pytest.raises(BrowserError) as refused:
            await service.shore.request(ws, "navigate", {"tabId": tab, "url": OWN_PAGE}, timeout=15)
        assert refused.value.code == "protected_page"
        assert await _live_url(service, ws, tab) == f"{web}/second"
        # Scripted while at rest on a web page: the extension keeps that tab's view from now on
        # (lib/tab-views.js), and the user's navigation below must still reach it.
        for _ in range(2):
            ran = await service.shore.request(
                ws, "cdp", {"tabId": tab, "method": "Runtime.evaluate", "params": {"expression": "1"}},
                timeout=15,
            )  # fmt: skip
            assert ran["result"]["result"]["value"] == 1

        # The user takes the agent's tab to the extension's page by hand.
        chrome_tab = split_tab_id(tab)[1]
        await in_extension_worker(
            launched.profile,
            f"chrome.tabs.update({chrome_tab}, {{url: {json.dumps(OWN_PAGE)}}}).then(() =>"
            " new Promise(r => setTimeout(r, 500)))",
        )
        assert await _live_url(service, ws, tab) == OWN_PAGE
        for method in ("Runtime.evaluate", "Page.captureScreenshot"):
            with pytest.raises(BrowserError) as kept_out:
                await service.shore.request(
                    ws, "cdp", {"tabId": tab, "method": method, "params": {"expression": "1"}},
                    timeout=15,
                )  # fmt: skip
            assert kept_out.value.code == "protected_page", method
        script = await service.call(
            "javascript_tool", ws, tabId=tab, action="javascript_exec",
            text="chrome.tabs.query({}).then(t => t.length)",
        )  # fmt: skip
        assert script.kind == "denied", text(script)
        assert "chrome-extension: page" in text(script) and text(script).startswith("Denied (D-")
        read = await service.call("get_page_text", ws, tabId=tab)  # a third would pause
        assert read.kind == "denied", text(read)
        assert EXTENSION_ID not in json.dumps(read.structured or {})
        for op, args in (("content", {"op": "get_page_text"}), ("screenshot", {})):
            with pytest.raises(BrowserError) as kept_out:
                await service.shore.request(ws, op, {"tabId": tab, **args}, timeout=15)
            assert kept_out.value.code == "protected_page", op
        # Leaving stays possible.
        back = await service.call("navigate", ws, url=f"{web}/second", tabId=tab)
        assert back.kind == "ok", text(back)
