"""A tab whose page crashed, and a tab that closed under a script, in real Chromium.

The renderer of a tab is crashed with CDP ``Page.crash`` (sent over the extension's own ``cdp``
op). Every tool then says the page crashed and that a reload brings it back, instead of
"Chrome does not let extensions into this page" or a wait to its bound blamed on the extension;
after ``tab_control`` reload the tab works again. A script that closes its own tab is answered
"the tab closed while ... was under way", with no native Chrome tab id in the words.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
import trio

from ghostlight_trio.browser.errors import BrowserError
from ghostlight_trio.workspace.tab_ids import SLOT_FACTOR

from .conftest import Service, open_page, tab_info, text

pytestmark = pytest.mark.e2e

RELOAD_STEP = "Next step: reload the tab with tab_control (action reload)"


async def _crash(service: Service, ws: str, tab: int) -> None:
    """Crash the tab's renderer; the command itself is answered by the crash."""
    with pytest.raises(BrowserError) as crashed:
        await service.shore.request(
            ws, "cdp", {"tabId": tab, "method": "Page.crash", "params": {}}, timeout=30
        )
    assert crashed.value.code == "page_crashed", crashed.value
    assert "while Page.crash was under way" in crashed.value.message


def _says_crashed(outcome: Any, tool: str) -> None:
    said = text(outcome)
    assert outcome.kind == "tool_error", (tool, outcome.kind, said)
    assert "crashed (its renderer process is gone" in said, (tool, said)
    assert RELOAD_STEP in said, (tool, said)
    for wrong in ("does not let extensions", "chrome://extensions", "still waiting", "did not answer"):
        assert wrong not in said, (tool, said)


async def test_every_tool_says_a_crashed_page_crashed_and_a_reload_brings_it_back(
    extended_service: Service, extended_browser: Any, web: str
) -> None:
    service = extended_service
    ws, tab = await open_page(service, f"{web}/form")
    await _crash(service, ws, tab)

    calls: list[tuple[str, dict[str, Any]]] = [
        ("get_page_text", {}),
        ("find", {"query": "Email"}),
        ("read_page", {}),
        ("computer", {"action": "screenshot"}),
        ("computer", {"action": "left_click", "coordinate": [20, 20]}),
        ("javascript_tool", {"action": "javascript_exec", "text": "1 + 1"}),
        ("wait_for", {"selector": "#email", "timeout_ms": 20000}),
        ("form_fill", {"fields": {"Email": "x@example.com"}}),
    ]
    for tool, arguments in calls:
        _says_crashed(await service.call(tool, ws, tabId=tab, **arguments), tool)

    reloaded = await service.call("tab_control", ws, tabId=tab, action="reload")
    assert reloaded.kind == "ok", text(reloaded)
    read = await service.call("get_page_text", ws, tabId=tab)
    assert read.kind == "ok" and "Sign up" in text(read), text(read)
    ran = await service.call("javascript_tool", ws, tabId=tab, action="javascript_exec", text="6 * 7")
    assert ran.kind == "ok" and "42" in text(ran), text(ran)

    # Navigating away brings a crashed tab back too.
    await _crash(service, ws, tab)
    went = await service.call("navigate", ws, tabId=tab, url=f"{web}/second")
    assert went.kind == "ok", text(went)
    read = await service.call("get_page_text", ws, tabId=tab)
    assert read.kind == "ok" and "second" in text(read), text(read)


async def test_a_crash_while_a_script_waits_is_answered_when_it_happens(
    extended_service: Service, extended_browser: Any, web: str
) -> None:
    service = extended_service
    ws, tab = await open_page(service, f"{web}/form")
    outcome: list[Any] = []

    async def run_script() -> None:
        outcome.append(
            await service.call(
                "javascript_tool", ws, tabId=tab, action="javascript_exec",
                text="document.title = 'waiting'; await new Promise(() => {})",
            )
        )

    async with trio.open_nursery() as nursery:
        nursery.start_soon(run_script)
        # The script is under way once its title shows (read over the browser's own tab list).
        with trio.fail_after(20):
            while (await tab_info(service, ws, tab))["title"] != "waiting":  # noqa: ASYNC110 - the browser changes it
                await trio.sleep(0.05)
        await _crash(service, ws, tab)
    [answer] = outcome
    said = text(answer)
    # The script had reached the page: whether it acted before the crash is not known.
    assert answer.kind == "outcome_unknown", said
    assert "crashed (its renderer process is gone" in said and "while Runtime.evaluate" in said
    assert "whether it took effect before the crash is not known" in said
    assert RELOAD_STEP in said
    # Nothing is left running in a crashed page, so the tab is not quarantined: a reload
    # brings it back and the next script runs.
    reloaded = await service.call("tab_control", ws, tabId=tab, action="reload")
    assert reloaded.kind == "ok", text(reloaded)
    ran = await service.call("javascript_tool", ws, tabId=tab, action="javascript_exec", text="6 * 7")
    assert ran.kind == "ok" and "42" in text(ran), text(ran)


async def test_a_script_that_closes_its_tab_is_told_the_tab_closed_in_composite_ids(
    extended_service: Service, extended_browser: Any, web: str
) -> None:
    service = extended_service
    ws, tab = await open_page(service, f"{web}/form")
    opened = await service.call(
        "javascript_tool", ws, tabId=tab, action="javascript_exec",
        text="window.open('/second'); 'opened'",
    )
    assert opened.kind == "ok", text(opened)
    with trio.fail_after(20):
        while True:
            listed = await service.call("tabs_context_mcp", ws)
            others = [t["tabId"] for t in listed.structured["tabs"] if t["tabId"] != tab]
            if others:
                break
            await trio.sleep(0.1)
    [child] = others
    closing = await service.call(
        "javascript_tool", ws, tabId=child, action="javascript_exec",
        text="setTimeout(() => window.close(), 300); await new Promise(r => setTimeout(r, 3000)); 5",
    )
    said = text(closing)
    assert closing.kind == "tool_error", said
    assert f"Tab {child} closed while Runtime.evaluate was under way" in said, said
    assert "Could not attach" not in said
    assert re.search(rf"\b{child % SLOT_FACTOR}\b", said) is None, said  # no native id
    assert "Next step: the tab is gone; list the workspace's tabs with tabs_context_mcp" in said
