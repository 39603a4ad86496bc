"""record_actions in real headless Chromium: a flow recorded once (navigate, type into labelled
fields, choose an option, tick a box, click the button that changes the page) is replayed by the
script tool in a fresh tab to the same page, and its Playwright export passes under the real
Playwright Test runner, then fails once the button is renamed. The password typed is in neither
export. A replay whose target became ambiguous stops there, with the candidates."""

from __future__ import annotations

import json
import os
import shutil
import uuid
from pathlib import Path
from typing import Any

import pytest
import trio

from .conftest import PAGES, Service, page_value, text

pytestmark = pytest.mark.e2e

NODE_DIR = Path(__file__).resolve().parents[1] / "record" / "node"
CHROMIUM = "/usr/bin/chromium"
PASSWORD = "hunter2-not-for-export"
FORM = """<!doctype html><title>Order form</title>
<h1>Order</h1>
<form onsubmit="event.preventDefault(); placed()">
<p><label>Full name <input id="who"></label></p>
<p><label>Password <input id="pw" type="password"></label></p>
<p><label>Size <select id="size"><option>Small</option><option>Medium</option><option>Large</option>
</select></label></p>
<p><label><input type="checkbox" id="gift"> Gift wrap</label></p>
<p><button type="submit">BUTTON</button></p>
</form>
<script>
function placed() {
  const said = `Thanks ${who.value}: ${size.value}${gift.checked ? ", wrapped" : ""}`
    + (pw.value ? "" : " (no password)");
  document.title = "Order placed";
  document.body.innerHTML = "<h1></h1>";
  document.querySelector("h1").textContent = said;
}
</script>"""


def _form(button: str = "Place order", extra: str = "") -> str:
    return FORM.replace("BUTTON", button).replace("</form>", f"{extra}</form>")


async def _ref(service: Service, ws: str, tab: int, query: str) -> str:
    found = await service.call("find", ws, tabId=tab, query=query)
    assert found.kind == "ok", text(found)
    return str(found.structured["results"][0]["ref"])


async def _record_the_flow(service: Service, web: str) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """The flow done once while recording; the workspace and both exports."""
    created = await service.call("tabs_create_mcp")
    ws, tab = created.workspace_id, created.structured["tabId"]
    started = await service.call("record_actions", ws, action="start")
    assert started.kind == "ok", text(started)
    landed = await service.call("navigate", ws, url=f"{web}/record/form", tabId=tab)
    assert landed.kind == "ok", text(landed)
    for field, typed in (("Full name", "Ada Lovelace"), ("Password", PASSWORD)):
        clicked = await service.call("computer", ws, tabId=tab, action="left_click", ref=await _ref(service, ws, tab, field))
        assert clicked.kind == "ok", text(clicked)
        done = await service.call("computer", ws, tabId=tab, action="type", text=typed)
        assert done.kind == "ok", text(done)
    chosen = await service.call("form_input", ws, tabId=tab, ref=await _ref(service, ws, tab, "Size"), value="Medium")
    assert chosen.kind == "ok", text(chosen)
    ticked = await service.call("computer", ws, tabId=tab, action="left_click", ref=await _ref(service, ws, tab, "Gift wrap"))
    assert ticked.kind == "ok", text(ticked)
    sent = await service.call("computer", ws, tabId=tab, action="left_click", ref=await _ref(service, ws, tab, "Place order"))
    assert sent.kind == "ok", text(sent)
    assert await page_value(service, ws, tab, "document.title") == "Order placed"
    stopped = await service.call("record_actions", ws, action="stop")
    assert stopped.kind == "ok", text(stopped)
    kinds = [step["kind"] for step in stopped.structured["steps"]]
    assert kinds == ["goto", "click", "fill", "click", "fill", "select", "check", "click"], kinds
    # The click that only focused a field before typing into it is not replayed.
    script = await service.call("record_actions", ws, action="export")
    playwright = await service.call("record_actions", ws, action="export", format="playwright")
    assert script.kind == playwright.kind == "ok", text(script) + text(playwright)
    for exported in (script, playwright):
        assert PASSWORD not in text(exported) and PASSWORD not in json.dumps(exported.structured)
    return str(ws), script.structured, playwright.structured


def _with_secrets(steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    said = json.dumps(steps).replace("{{secret:PASSWORD}}", PASSWORD)
    return list(json.loads(said))


async def _replay(service: Service, ws: str, web: str, steps: list[dict[str, Any]]) -> tuple[int, Any]:
    created = await service.call("tabs_create_mcp", ws)
    tab = created.structured["tabId"]
    ran = await service.call("script", ws, tabId=tab, steps=steps)
    return tab, ran


async def _playwright(source: str, secret: str) -> trio.CompletedProcess[bytes]:
    folder = NODE_DIR / "flows" / uuid.uuid4().hex
    folder.mkdir(parents=True)
    try:
        (folder / "flow.spec.ts").write_text(source, "utf-8")
        env = {**os.environ, "GHOSTLIGHT_FLOWS": str(folder), "GHOSTLIGHT_SECRET_PASSWORD": secret,
               "GHOSTLIGHT_CHROMIUM": CHROMIUM}  # fmt: skip
        return await trio.run_process(
            ["npx", "--no-install", "playwright", "test", "--config", "playwright.config.mjs"],
            cwd=NODE_DIR, env=env, capture_stdout=True, capture_stderr=True, check=False,
        )  # fmt: skip
    finally:
        shutil.rmtree(folder, ignore_errors=True)


async def _node_runner() -> None:
    """The Playwright Test runner from the lock file (``npm ci``, as nox does)."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip("node is not installed")
    if not (NODE_DIR / "node_modules" / "@playwright" / "test").is_dir():
        await trio.run_process(["npm", "ci", "--no-audit", "--no-fund", "--silent"], cwd=NODE_DIR)


async def test_a_recorded_flow_replays_in_a_fresh_tab_and_as_a_playwright_test(
    extended_service: Service, extended_browser: Any, web: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    await _node_runner()
    monkeypatch.setitem(PAGES, "/record/form", _form())
    service = extended_service
    ws, script, playwright = await _record_the_flow(service, web)
    assert script["secrets"] == playwright["secrets"] == ["PASSWORD"] and not script["warnings"]

    tab, ran = await _replay(service, ws, web, _with_secrets(script["steps"]))
    assert ran.kind == "ok", text(ran)
    assert await page_value(service, ws, tab, "document.title") == "Order placed"
    said = await page_value(service, ws, tab, "document.querySelector('h1').textContent")
    assert said == "Thanks Ada Lovelace: Medium, wrapped"

    source = playwright["file"]
    assert 'getByRole("button", { name: "Place order", exact: true })' in source
    assert 'getByLabel("Password", { exact: true })' in source
    passed = await _playwright(source, PASSWORD)
    assert passed.returncode == 0, passed.stdout.decode() + passed.stderr.decode()
    monkeypatch.setitem(PAGES, "/record/form", _form("Send it"))
    failed = await _playwright(source, PASSWORD)
    assert failed.returncode != 0, failed.stdout.decode()
    assert "Place order" in failed.stdout.decode()


async def test_a_replay_stops_where_its_target_became_ambiguous(
    extended_service: Service, extended_browser: Any, web: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(PAGES, "/record/form", _form())
    service = extended_service
    ws, script, _ = await _record_the_flow(service, web)
    monkeypatch.setitem(PAGES, "/record/form", _form(extra='<p><button type="button">Place order</button></p>'))
    tab, ran = await _replay(service, ws, web, _with_secrets(script["steps"]))
    assert ran.kind != "ok", text(ran)
    results = ran.structured["results"]
    assert [r["status"] for r in results][:5] == ["ok"] * 5
    last = results[5]
    assert last["status"] == "error" and last["tool"] == "act_on"
    assert "ambiguous_target" in last["result"]
    candidates = last["structured"]["candidates"]
    assert len(candidates) == 2 and {c["name"] for c in candidates} == {"Place order"}
    assert await page_value(service, ws, tab, "document.title") == "Order form"
