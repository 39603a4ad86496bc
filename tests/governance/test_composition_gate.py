"""Compositions pass the one chokepoint step by step: each step is judged, held or stopped like
a call of its own, and audited with the composition's work id before its own number."""

from __future__ import annotations

import trio
from browser.session_driver import text  # tests/ is on sys.path (rootdir packages)

from ghostlight_trio.engine.contracts import ToolCall, ToolResult
from ghostlight_trio.tools.browser_batch import run_batch
from ghostlight_trio.tools.script import run_script

from .harness import TAB, FakeBrowser, GovernedHarness, grant, manifest, navigating_handler, state

NARROW = manifest(grant("docs", ["docs.example.com"], ["read", "action"]))


def harness(nursery, tmp_path, policy=None):
    browser = FakeBrowser()
    handlers = {"navigate": navigating_handler(browser), "script": run_script, "browser_batch": run_batch}
    return GovernedHarness(nursery, handlers, tmp_path / "audit.jsonl", policy, browser=browser)


def slow_navigation(h: GovernedHarness, seconds: float) -> trio.Event:
    """Make navigate one atomic effect of ``seconds`` that records its landing; the event is
    set once the first one is under way."""
    started = trio.Event()

    async def slow(call: ToolCall) -> ToolResult:
        async def effect() -> None:
            started.set()
            await trio.sleep(seconds)
            h.browser.navigations.append((TAB, call.arguments["url"]))

        await call.effects.atomic(effect)
        return ToolResult.text("navigated")

    h.engine.handlers["navigate"] = slow
    return started


def go(url: str) -> dict:
    return {"name": "navigate", "input": {"url": url, "tabId": TAB}}


async def test_each_step_is_judged_by_policy_and_a_denied_one_never_reaches_the_browser(
    nursery, tmp_path
):
    h = harness(nursery, tmp_path, state(NARROW))
    ws = h.workspace(TAB)
    actions = [go("https://docs.example.com/a"), go("https://evil.test/b"), go("https://docs.example.com/c")]
    work = h.start("browser_batch", {"actions": actions}, ws)
    out = await h.outcome(work)
    assert out.kind == "denied"
    assert "step 2 (navigate) denied: Denied (D-" in text(out)
    assert h.browser.navigations == [(TAB, "https://docs.example.com/a")]
    await h.settled()
    records = {r["call"]: r for r in h.records()}
    assert records[f"{work}/1"]["decision"] == "allow" and records[f"{work}/1"]["grant"] == "docs"
    assert records[f"{work}/2"]["decision"] == "deny" and records[f"{work}/2"]["host"] == "evil.test"
    assert f"{work}/3" not in records and records[work]["tool"] == "browser_batch"
    assert records[work]["outcome"] == "denied"  # the batch says what ended it


async def test_hold_lets_the_running_step_finish_and_holds_the_next(
    nursery, tmp_path, autojump_clock
):
    h = harness(nursery, tmp_path)
    ws = h.workspace(TAB)
    started = slow_navigation(h, seconds=5)
    work = h.start("browser_batch", {"actions": [go("https://a.test/"), go("https://b.test/")]}, ws)
    await started.wait()
    h.governor.hold()
    out = await h.outcome(work)
    assert h.browser.navigations == [(TAB, "https://a.test/")]
    assert "step 2 (navigate) held: " in text(out) and "NOT executed" in text(out)
    assert text(out).endswith("1/2 steps completed; step 2 held")
    assert out.kind == "held"


async def test_the_kill_switch_stops_a_composition_after_the_running_effect_drains(
    nursery, tmp_path, autojump_clock
):
    h = harness(nursery, tmp_path)
    ws = h.workspace(TAB)
    started = slow_navigation(h, seconds=3)
    steps = [{"tool": "navigate", "args": {"url": f"https://{n}.test/"}} for n in "abc"]
    work = h.start("script", {"tabId": TAB, "steps": steps}, ws)
    await started.wait()
    h.governor.panic()
    out = await h.outcome(work)
    assert out.kind == "cancelled" and "kill switch" in text(out)
    assert h.browser.navigations == [(TAB, "https://a.test/")]  # drained; b and c never ran
    await h.settled()
    *_, script = h.records()
    assert (script["tool"], script["outcome"], script["reported"]) == ("script", "cancelled", "cancelled")
