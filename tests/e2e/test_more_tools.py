"""tab_control, wait_for and dialog in real headless Chromium with the real extension.

Every effect is read back independently of the tool that caused it: through the test's own
``tab_info`` / CDP ``Runtime.evaluate`` requests over the browser shore and the workspace
registry, never from the tool's own echo.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
import trio

from ghostlight_trio.browser.errors import BrowserError

from .conftest import PAGES, Service, dialog_when_open, open_page, page_value, tab_info, text

pytestmark = pytest.mark.e2e

MORE_PAGES = {
    "/more/late": """<!doctype html><title>Late page</title>
<div id="spinner">Loading…</div>
<p id="hidden" style="display:none">Hidden words</p>
<script>
setTimeout(() => {
  document.getElementById('spinner').remove();
  const p = document.createElement('p');
  p.id = 'late';
  p.innerHTML = 'Arrived <b>late</b> today';
  document.body.appendChild(p);
}, 700);
</script>""",
    "/more/busy": """<!doctype html><title>Busy page</title>
<ul id="list"></ul>
<script>
const list = document.getElementById('list');
const started = Date.now();
const timer = setInterval(() => {
  for (let i = 0; i < 5; i++) list.appendChild(document.createElement('li'));
  if (Date.now() - started > 900) { clearInterval(timer); window.busyDone = Date.now(); }
}, 30);
</script>""",
    "/more/plain": "<!doctype html><title>Plain page</title><p>plain</p>",
    # Click handlers that keep the page busy past the 20 s bound on one browser command.
    "/more/stall": """<!doctype html><title>Stalling page</title>
<button onclick="const end = Date.now() + 23000; while (Date.now() < end) {}">Stall briefly</button>
<button onclick="while (true) {}">Stall for good</button>""",
}
PAGES.update(MORE_PAGES)


async def test_tab_control_focuses_reloads_and_closes(
    more_service: Service, more_browser: Any, web: str
) -> None:
    service = more_service
    ws, first = await open_page(service, f"{web}/more/plain")
    _, second = await open_page(service, f"{web}/", ws)
    assert (await tab_info(service, ws, first))["active"] is False

    focused = await service.call("tab_control", ws, tabId=first, action="focus")
    assert focused.kind == "ok", text(focused)
    receipt = focused.structured["interactionReceipt"]
    assert receipt["observedAfter"]["tabFocused"] is True and receipt["action"] == "focus"
    assert (await tab_info(service, ws, first))["active"] is True
    assert (await tab_info(service, ws, second))["active"] is False

    await page_value(service, ws, first, "window.marker = 'before reload'")
    reloaded = await service.call("tab_control", ws, tabId=first, action="reload")
    assert reloaded.kind == "ok", text(reloaded)
    receipt = reloaded.structured["interactionReceipt"]
    assert receipt["observedAfter"]["tabReloaded"] is True and receipt["blockers"] == []
    assert receipt["page"]["url"] == f"{web}/more/plain"
    assert await page_value(service, ws, first, "typeof window.marker") == "undefined"
    navigation = "performance.getEntriesByType('navigation')[0].type"
    assert await page_value(service, ws, first, navigation) == "reload"

    closed = await service.call("tab_control", ws, tabId=second, action="close")
    assert closed.kind == "ok", text(closed)
    assert closed.structured["interactionReceipt"]["observedAfter"]["tabClosed"] is True
    with pytest.raises(BrowserError):
        await tab_info(service, ws, second)
    assert second not in service.registry.owned_tabs(ws)
    listed = await service.call("tabs_context_mcp", ws)
    assert [tab["tabId"] for tab in listed.structured["tabs"]] == [first]
    again = await service.call("tab_control", ws, tabId=second, action="close")
    assert again.kind != "ok"


async def test_wait_for_reports_found_gone_and_honest_timeouts(
    more_service: Service, more_browser: Any, web: str
) -> None:
    service = more_service
    ws, tab = await open_page(service, f"{web}/more/late")

    seen = await service.call("wait_for", ws, tabId=tab, selector="#late", timeout_ms=5000)
    assert seen.kind == "ok", text(seen)
    assert seen.structured["found"] is True and seen.structured["elapsed_ms"] < 5000
    assert seen.structured["ref"].startswith("ref_")
    assert "settled" not in seen.structured
    assert await page_value(service, ws, tab, "!!document.getElementById('late')") is True
    described = await service.shore.request(
        ws,
        "content",
        {"tabId": tab, "fn": "element_rect", "args": {"ref": seen.structured["ref"]}},
        timeout=20,
    )
    real = await page_value(
        service, ws, tab, "(() => { const r = late.getBoundingClientRect(); return r.top; })()"
    )
    assert described["value"]["tag"].lower() == "p"
    assert abs(described["value"]["box"]["y"] - real) < 1

    by_text = await service.call("wait_for", ws, tabId=tab, text="arrived LATE", timeout_ms=3000)
    assert by_text.structured["found"] is True, text(by_text)
    assert by_text.structured["ref"] == seen.structured["ref"]  # the deepest element: <p id=late>

    gone = await service.call("wait_for", ws, tabId=tab, selector="#spinner", state="gone")
    assert gone.structured["found"] is True and "ref" not in gone.structured
    assert await page_value(service, ws, tab, "document.getElementById('spinner')") is None

    hidden = await service.call("wait_for", ws, tabId=tab, selector="#hidden", timeout_ms=600)
    assert hidden.kind == "ok", text(hidden)
    assert hidden.structured["found"] is False and hidden.structured["elapsed_ms"] >= 600
    assert "1 matching element(s), 0 visible" in text(hidden)
    present = await service.call("wait_for", ws, tabId=tab, selector="#hidden", state="present")
    assert present.structured["found"] is True

    with trio.fail_after(5):
        never = await service.call("wait_for", ws, tabId=tab, text="never here", timeout_ms=800)
    assert never.structured["found"] is False
    assert 800 <= never.structured["elapsed_ms"] < 3000
    assert text(never).startswith("Not met within 800 ms: expected that ")

    bad = await service.call("wait_for", ws, tabId=tab, selector="p[", timeout_ms=2000)
    assert bad.kind == "tool_error" and "selector" in text(bad)
    bare = await service.call("wait_for", ws, tabId=tab, state="visible")
    assert bare.kind == "tool_error"


async def test_wait_for_on_a_page_no_extension_may_read_says_so_at_once(
    more_service: Service, more_browser: Any, web: str
) -> None:
    """about:blank stays unreadable however long one waits: said at once, not at the timeout.
    A tab loading a web page is still waited on."""
    service = more_service
    ws, tab = await open_page(service, f"{web}/more/late")
    created = await service.call("tabs_create_mcp", ws)
    blank = created.structured["tabId"]
    began = trio.current_time()
    refused = await service.call("wait_for", ws, tabId=blank, text="anything", timeout_ms=8000)
    assert refused.kind == "tool_error", text(refused)
    assert "Chrome does not let extensions into this page" in text(refused)
    assert trio.current_time() - began < 4
    await service.call("navigate", ws, tabId=tab, url="about:blank")
    await service.shore.request(
        ws, "cdp", {"tabId": tab, "method": "Runtime.evaluate",
                    "params": {"expression": f"location.href = {web + '/slow'!r}"}},
        timeout=20,
    )  # fmt: skip
    # The tab shows about:blank until the slow server answers: that is waited out.
    seen = await service.call(
        "wait_for", ws, tabId=tab, selector="title", state="present", timeout_ms=15000
    )
    assert seen.kind == "ok" and seen.structured["found"] is True, text(seen)
    assert await page_value(service, ws, tab, "document.title") == "Slow page"


async def test_wait_for_settled_waits_out_a_busy_page(
    more_service: Service, more_browser: Any, web: str
) -> None:
    service = more_service
    ws, tab = await open_page(service, f"{web}/more/plain")
    await service.shore.request(
        ws, "navigate", {"tabId": tab, "url": f"{web}/more/busy", "timeoutMs": 0}, timeout=20
    )
    settled = await service.call("wait_for", ws, tabId=tab, state="settled", timeout_ms=8000)
    assert settled.kind == "ok", text(settled)
    data = settled.structured
    assert data["found"] is True and data["settled"] is True
    assert data["peak_mutations"] > 0 and data["final_rate"] >= 0
    done_at = await page_value(service, ws, tab, "window.busyDone || 0")
    now = await page_value(service, ws, tab, "Date.now()")
    assert done_at and now - done_at >= 500  # the page really had stopped changing
    assert await page_value(service, ws, tab, "list.children.length") > 20

    quick = await service.call(
        "wait_for", ws, tabId=tab, selector="#list", min_ms=700, settle=True, timeout_ms=5000
    )
    assert quick.structured["found"] is True and quick.structured["elapsed_ms"] >= 700
    assert quick.structured["settled"] is True and "ref" in quick.structured


async def test_dialog_status_and_answers_reach_the_page(
    more_service: Service, more_browser: Any, web: str
) -> None:
    service = more_service
    ws, tab = await open_page(service, f"{web}/more/plain")

    idle = await service.call("dialog", ws, tabId=tab, action="status")
    assert idle.kind == "ok", text(idle)
    assert idle.structured["open"] is False
    nothing = await service.call("dialog", ws, tabId=tab, action="accept")
    assert nothing.kind == "ok" and nothing.structured["resolved"] is False

    await page_value(
        service, ws, tab, "setTimeout(() => { window.answer = prompt('Your name?', 'nobody'); }, 50)"
    )
    status = await dialog_when_open(service, ws, tab)
    assert status.structured["type"] == "prompt"
    assert status.structured["message"] == "Your name?"
    assert status.structured["defaultPrompt"] == "nobody"
    assert "UNTRUSTED" in text(status) and "Your name?" in text(status)
    answered = await service.call("dialog", ws, tabId=tab, action="respond", text="Ada")
    assert answered.kind == "ok", text(answered)
    assert answered.structured["resolved"] is True and answered.structured["type"] == "prompt"
    assert await page_value(service, ws, tab, "window.answer") == "Ada"

    await page_value(
        service, ws, tab, "setTimeout(() => { window.confirmed = confirm('Sure?'); }, 50)"
    )
    await dialog_when_open(service, ws, tab)
    dismissed = await service.call("dialog", ws, tabId=tab, action="dismiss")
    assert dismissed.structured["resolved"] is True and dismissed.structured["type"] == "confirm"
    assert await page_value(service, ws, tab, "window.confirmed") is False
    after = await service.call("dialog", ws, tabId=tab, action="status")
    assert after.structured["open"] is False



async def test_wait_for_stops_promptly_when_cancelled(
    more_service: Service, more_browser: Any, web: str
) -> None:
    from ghostlight_trio.transport.bridge import RequestContext, Start

    service = more_service
    ws, tab = await open_page(service, f"{web}/more/plain")
    started = service.session.start(
        Start(
            sequence=999,
            operation="wait_for",
            arguments={"tabId": tab, "selector": "#never", "timeout_ms": 30_000},
            workspace_id=ws,
            context=RequestContext(client_label="e2e"),
        )
    )
    work_id = started.work_id
    await trio.sleep(1.0)
    assert work_id not in service.sink.outcomes  # still polling
    began = trio.current_time()
    service.session.cancel(work_id)
    with trio.fail_after(10):
        while work_id not in service.sink.outcomes:
            await service.sink.changed.wait()
    assert trio.current_time() - began < 5
    assert service.sink.outcomes[work_id].kind != "ok"
    # The tab stays usable: nothing was quarantined by a cancelled read.
    again = await service.call("wait_for", ws, tabId=tab, selector="p", timeout_ms=2000)
    assert again.kind == "ok" and again.structured["found"] is True, text(again)
    # A wait that could not answer before the caller's 60 s is refused, not left to run out.
    long = await service.call("wait_for", ws, tabId=tab, selector="#never", timeout_ms=60_000)
    assert long.kind == "tool_error" and "timeout_ms is at most 30000" in text(long)


async def test_a_quarantined_tab_is_freed_by_the_late_answer_or_by_closing_it(
    more_service: Service, more_browser: Any, web: str
) -> None:
    """A click whose page handler outlasts the command bound has an unknown outcome, so its tab
    is quarantined and nothing more is sent to it. Two proofs free it: the browser's late
    answer to that very command, and closing the tab, which the quarantine lets through."""
    service = more_service
    ws, tab = await open_page(service, f"{web}/more/stall")
    tree = await service.call("read_page", ws, tabId=tab, filter="interactive")
    briefly, for_good = ref_named(text(tree), "Stall briefly"), ref_named(text(tree), "Stall for good")

    stalled = await service.call("computer", ws, tabId=tab, action="left_click", ref=briefly)
    assert stalled.kind == "outcome_unknown", text(stalled)
    assert f"Tab {tab} is now quarantined: nothing more is sent to it until" in text(stalled)
    refused = await service.call("get_page_text", ws, tabId=tab)
    assert refused.kind == "tool_error"
    # Named by the id the agent uses, with the ways out that work.
    assert text(refused).startswith(f"Not started: tab {tab} is quarantined because")
    assert "tabs_create_mcp" in text(refused) and "tab_control (action close)" in text(refused)
    with trio.fail_after(20):  # the handler ends ~3 s after the bound: the click is answered
        while True:
            if (await service.call("get_page_text", ws, tabId=tab)).kind == "ok":
                break
            await trio.sleep(0.2)

    stuck = await service.call("computer", ws, tabId=tab, action="left_click", ref=for_good)
    assert stuck.kind == "outcome_unknown", text(stuck)
    assert (await service.call("get_page_text", ws, tabId=tab)).kind == "tool_error"
    closed = await service.call("tab_control", ws, tabId=tab, action="close")
    assert closed.kind == "ok", text(closed)
    with pytest.raises(BrowserError):
        await tab_info(service, ws, tab)
    listed = await service.call("tabs_context_mcp", ws)
    assert tab not in [t["tabId"] for t in (listed.structured or {}).get("tabs", [])]


def ref_named(tree: str, name: str) -> str:
    match = re.search(rf'"{re.escape(name)}" \[(ref_\d+)\]', tree)
    assert match, tree
    return match.group(1)
