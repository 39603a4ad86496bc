"""browser_batch and script in real headless Chromium with the real extension.

Effects are read back through the test's own CDP requests over the browser shore, never from
the composition's own report.
"""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
import trio

from ghostlight_trio.tools import javascript_tool as javascript
from ghostlight_trio.tools.shared import composition as compositions
from ghostlight_trio.transport.bridge import ImageBlock

from .conftest import Service, open_page, page_value, text

pytestmark = pytest.mark.e2e




async def test_a_batch_navigates_reads_and_screenshots_in_one_call(
    extended_service: Service, extended_browser: Any, web: str
) -> None:
    service = extended_service
    ws, tab = await open_page(service, f"{web}/")
    actions = [
        {"name": "navigate", "input": {"url": f"{web}/targets", "tabId": tab}},
        {"name": "find", "input": {"query": "Bravo button", "tabId": tab}},
        {"name": "computer", "input": {"action": "screenshot", "tabId": tab}},
    ]
    outcome = await service.call("browser_batch", ws, actions=actions)
    assert outcome.kind == "ok", text(outcome)
    assert await page_value(service, ws, tab, "location.pathname") == "/targets"
    texts = [block.text for block in outcome.content if not isinstance(block, ImageBlock)]
    assert texts[0].startswith("step 1 (navigate) ok: ")
    assert texts[1].startswith("step 2 (find) ok: ") and "Bravo" in texts[1]
    assert texts[-1] == "3/3 steps completed"
    images = [block for block in outcome.content if isinstance(block, ImageBlock)]
    assert len(images) == 1 and images[0].mime_type == "image/jpeg"


async def test_a_script_clicks_what_its_find_step_found(
    extended_service: Service, extended_browser: Any, web: str
) -> None:
    service = extended_service
    ws, tab = await open_page(service, f"{web}/targets")
    steps = [
        {"tool": "find", "args": {"query": "Charlie button"}},
        {"tool": "computer", "args": {"action": "left_click", "ref": "$prev.results.0.ref"}},
        {"tool": "read_console_messages", "args": {"pattern": "$$none"}},
    ]
    outcome = await service.call("script", ws, tabId=tab, steps=steps)
    assert outcome.kind == "ok", text(outcome)
    assert await page_value(service, ws, tab, "window.hits.filter(h => h.includes('click:'))") == [
        "c:click:1"
    ]
    body = json.loads(text(outcome))
    assert [r["status"] for r in body["results"]] == ["ok", "ok", "ok"]
    assert body["results"][0]["structured"]["results"][0]["ref"].startswith("ref_")


async def test_a_step_on_another_workspaces_tab_is_denied_and_that_tab_untouched(
    extended_service: Service, extended_browser: Any, web: str
) -> None:
    service = extended_service
    ws, tab = await open_page(service, f"{web}/targets")
    other_ws, other_tab = await open_page(service, f"{web}/targets")
    actions = [
        {"name": "computer", "input": {"action": "left_click", "coordinate": [90, 70], "tabId": tab}},
        {"name": "navigate", "input": {"url": f"{web}/", "tabId": other_tab}},
    ]
    outcome = await service.call("browser_batch", ws, actions=actions)
    assert outcome.kind == "denied"  # the batch is what ended it
    assert "step 2 (navigate) denied: " in text(outcome)
    assert "1/2 steps completed; step 2 denied" in text(outcome)
    assert await page_value(service, other_ws, other_tab, "location.pathname") == "/targets"
    assert await page_value(service, ws, tab, "window.hits.includes('a:click:1')") is True


async def test_a_step_spinning_its_page_is_cut_at_the_step_bound_and_the_report_kept(
    extended_service: Service, extended_browser: Any, web: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A javascript_tool step whose script loops forever is still waiting on the browser at the
    step bound: the script answers then, naming that step's outcome unknown and keeping the
    steps before it, and the tab is free again once Chrome has stopped the loop and said so."""
    monkeypatch.setattr(compositions, "STEP_CUTOFF_S", 4.0)
    monkeypatch.setattr(javascript, "JS_TIMEOUT_MS", 10_000)  # Chrome stops the loop then
    monkeypatch.setattr(javascript, "PENDING_AFTER_MS", 12_000)
    service = extended_service
    ws, tab = await open_page(service, f"{web}/targets")
    run = {"action": "javascript_exec"}
    steps = [
        {"tool": "javascript_tool", "args": {**run, "text": "6 * 7"}},
        {"tool": "javascript_tool", "args": {**run, "text": "window.spun = true; while (true) {}"}},
        {"tool": "find", "args": {"query": "Bravo button"}},
    ]
    began = time.monotonic()
    outcome = await service.call("script", ws, tabId=tab, steps=steps)
    took = time.monotonic() - began
    assert outcome.kind == "outcome_unknown", text(outcome)
    assert took < 4.0 + 2.0 + 2.0, took  # the step bound, its 2 s to drain, and some slack
    body = outcome.structured
    assert [r["status"] for r in body["results"]] == ["ok", "outcome_unknown", "not_run"]
    assert "42" in body["results"][0]["result"]
    assert body["summary"].startswith(
        "1/3 steps completed; the outcome of step 2 is unknown: it was still waiting on the"
        " browser 4 s into the composition"
    ), body["summary"]
    with trio.fail_after(40):
        while True:
            after = await service.call("javascript_tool", ws, tabId=tab, text="window.spun", **run)
            if after.kind == "ok":
                break
            assert "quarantined" in text(after), text(after)
            await trio.sleep(0.5)
    assert "true" in text(after)  # the script ran, and its late answer freed the tab
