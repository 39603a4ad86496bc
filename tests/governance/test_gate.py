"""The one chokepoint: policy, never-touch sites, landing re-check, hold, kill switch, attention,
per-request restrictions."""

from __future__ import annotations

import json
import re

import pytest
import trio
from browser.session_driver import text  # tests/ is on sys.path (rootdir packages)

from ghostlight_trio.engine import texts
from ghostlight_trio.engine.contracts import ToolCall, ToolResult
from ghostlight_trio.governance.assembly import advertise
from ghostlight_trio.tools.browser_batch import run_batch
from ghostlight_trio.tools.script import run_script
from ghostlight_trio.transport.bridge import Rejected, Start

from .harness import (
    OTHER_TAB,
    TAB,
    FakeBrowser,
    GovernedHarness,
    grant,
    manifest,
    navigating_handler,
    page_handler,
    state,
)

DENIAL = re.compile(r"^Denied \(D-[0-9a-f]{8}\)(?: by the (?:user's|organisation's) policy)?: ")
NARROW = manifest(grant("docs", ["docs.example.com", "*.example.org"], ["read", "action"]))


def _handlers(h_browser, calls):
    return {
        "navigate": navigating_handler(h_browser),
        "computer": page_handler(h_browser, calls),
        "get_page_text": page_handler(h_browser, calls),
        "update_plan": page_handler(h_browser, calls),
        "javascript_tool": page_handler(h_browser, calls),
        "tabs_create_mcp": page_handler(h_browser, calls),
        "tabs_context_mcp": page_handler(h_browser, calls),
    }


def harness(nursery, tmp_path, policy=None):
    browser = FakeBrowser()
    calls: list[str] = []
    h = GovernedHarness(
        nursery, _handlers(browser, calls), tmp_path / "audit.jsonl", policy, browser=browser
    )
    h.calls = calls  # type: ignore[attr-defined]
    return h


def _narrow_on_docs(nursery, tmp_path, browser, **handlers):
    """A harness under NARROW with ``handlers`` over the usual ones, and a workspace whose tab
    shows an allowed page."""
    h = GovernedHarness(
        nursery, {**_handlers(browser, []), **handlers}, tmp_path / "audit.jsonl", state(NARROW),
        browser=browser,
    )  # fmt: skip
    ws = h.workspace(TAB)
    browser.urls[TAB] = "https://docs.example.com/"
    return h, ws


async def test_all_open_allows_everything_and_reads_no_tab(nursery, tmp_path):
    h = harness(nursery, tmp_path)
    ws = h.workspace(TAB)
    assert (await h.call("navigate", {"url": "https://anything.test/a", "tabId": TAB}, ws)).kind == "ok"
    assert (await h.call("computer", {"action": "left_click", "coordinate": [1, 1], "tabId": TAB}, ws)).kind == "ok"
    assert h.browser.probes == 0
    records = h.records()
    assert [(r["decision"], r["rule"]) for r in records] == [("allow", "all_open")] * 2
    assert records[0]["host"] == "anything.test"


async def test_denied_navigate_never_reaches_the_browser(nursery, tmp_path):
    h = harness(nursery, tmp_path, state(NARROW))
    ws = h.workspace(TAB)
    out = await h.call("navigate", {"url": "https://evil.test/secret/path", "tabId": TAB}, ws)
    assert out.kind == "denied" and DENIAL.match(text(out)), text(out)
    assert "navigate on evil.test" in text(out) and "no grant covers" in text(out)
    assert h.browser.navigations == []
    ok = await h.call("navigate", {"url": "https://DOCS.example.com./x", "tabId": TAB}, ws)
    assert ok.kind == "ok"
    again = await h.call("navigate", {"url": "https://evil.test/", "tabId": TAB}, ws)
    assert DENIAL.match(text(again)).group(0) == DENIAL.match(text(out)).group(0)  # stable id
    [first, allowed, second] = h.records()
    assert first["decision"] == "deny" and first["rule"] == "unmatched_domain"
    assert allowed["decision"] == "allow" and allowed["grant"] == "docs"
    assert first["denial_id"] == second["denial_id"] != ""


async def test_tab_bound_calls_are_judged_by_the_live_tab_url(nursery, tmp_path):
    h = harness(nursery, tmp_path, state(NARROW))
    ws = h.workspace(TAB, OTHER_TAB)
    h.browser.urls[TAB] = "https://a.example.org/page"
    h.browser.urls[OTHER_TAB] = "https://good.com@evil.test/"
    read = await h.call("get_page_text", {"tabId": TAB}, ws)
    js = await h.call("javascript_tool", {"action": "javascript_exec", "text": "1", "tabId": TAB}, ws)
    bypass = await h.call("get_page_text", {"tabId": OTHER_TAB}, ws)
    assert read.kind == "ok"
    assert js.kind == "denied" and "needs execute, which grant 'docs' does not allow" in text(js)
    assert bypass.kind == "denied" and "evil.test" in text(bypass)
    assert h.calls == ["get_page_text"]  # type: ignore[attr-defined]
    assert h.browser.probes == 4  # three before the calls, one where the read ended up


async def test_a_call_whose_page_went_on_to_a_denied_host_answers_nothing_of_it(nursery, tmp_path):
    """A click allowed on an allowed page that takes the tab to a denied host (a link, a form,
    the page's own script): the effect stands, but what the call answers about the new page
    (its receipt's URL and title, say) is withheld, and the tab is moved to about:blank."""
    browser = FakeBrowser()

    async def clicking_away(call: ToolCall) -> ToolResult:
        if call.arguments["action"] == "left_click":
            browser.urls[TAB] = "https://evil.test/inbox?token=1"
        page = {"tabId": TAB, "url": browser.urls[TAB], "title": "Secret inbox"}
        return ToolResult.text("Clicked; receipt: Secret inbox", structured={"interactionReceipt": {"page": page}})

    h, ws = _narrow_on_docs(nursery, tmp_path, browser, computer=clicking_away)
    out = await h.call("computer", {"action": "left_click", "coordinate": [1, 1], "tabId": TAB}, ws)
    assert out.kind == "denied", text(out)
    assert "computer was carried out, and the page then went on to evil.test" in text(out)
    assert "Secret inbox" not in text(out) and "token" not in text(out)
    assert out.structured is None or "interactionReceipt" not in out.structured
    assert browser.urls[TAB] == "about:blank"
    [record] = h.records()
    assert (record["decision"], record["host"]) == ("deny", "evil.test")
    stay = await h.call("navigate", {"url": "https://docs.example.com/a", "tabId": TAB}, ws)
    assert stay.kind == "ok"
    same = await h.call("computer", {"action": "screenshot", "tabId": TAB}, ws)
    assert same.kind == "ok", text(same)  # a call that stayed on an allowed page: as usual


async def test_a_call_needing_nothing_of_a_page_answers_nothing_of_a_closed_one(nursery, tmp_path):
    """Focusing a tab needs no grant, but its answer names the page the tab shows. When an
    earlier click's navigation has since taken the tab to a denied host, that page's address
    and title are withheld, the tab is parked, and a recording takes no frame of it."""
    browser = FakeBrowser()

    async def focusing(call: ToolCall) -> ToolResult:
        page = {"tabId": TAB, "url": browser.urls[TAB], "title": "Secret inbox"}
        return ToolResult.text("Focused the tab.", structured={"interactionReceipt": {"page": page}})

    h, ws = _narrow_on_docs(nursery, tmp_path, browser, tab_control=focusing)
    fine = await h.call("tab_control", {"action": "focus", "tabId": TAB}, ws)
    assert fine.kind == "ok", text(fine)
    assert await h.gate.may_see(ws, TAB)

    browser.urls[TAB] = "https://evil.test/inbox?token=1"  # landed late, after its click answered
    assert not await h.gate.may_see(ws, TAB)
    out = await h.call("tab_control", {"action": "focus", "tabId": TAB}, ws)
    assert out.kind == "denied", text(out)
    assert "tab_control was carried out, and the tab shows a page on evil.test" in text(out)
    assert "Secret inbox" not in text(out) and out.structured is None
    assert browser.urls[TAB] == "about:blank"
    assert await h.gate.may_see(ws, TAB)
    assert [(r["decision"], r["host"]) for r in h.records()][-1] == ("deny", "evil.test")


async def test_free_actions_need_no_host_probe(nursery, tmp_path):
    h = harness(nursery, tmp_path, state(NARROW))
    ws = h.workspace(TAB)
    assert (await h.call("update_plan", {"domains": ["x"], "approach": ["y"]})).kind == "ok"
    assert (await h.call("tabs_create_mcp", {}, ws)).kind == "ok"
    assert h.browser.probes == 0


async def test_never_touch_sites_are_refused_even_all_open(nursery, tmp_path):
    h = harness(nursery, tmp_path, state(None, never_touch=["bank.test", "*.health.test"]))
    ws = h.workspace(TAB)
    out = await h.call("navigate", {"url": "https://www.health.test/", "tabId": TAB}, ws)
    assert out.kind == "denied" and "never-touch" in text(out) and DENIAL.match(text(out))
    h.browser.urls[TAB] = "https://BANK.test./account"
    tab_call = await h.call("computer", {"action": "screenshot", "tabId": TAB}, ws)
    assert tab_call.kind == "denied" and "bank.test is on the user's never-touch list" in text(tab_call)
    assert h.browser.navigations == [] and h.calls == []  # type: ignore[attr-defined]
    assert [r["rule"] for r in h.records()] == ["sacred/*.health.test", "sacred/bank.test"]


async def test_local_files_are_never_opened_for_an_agent_whatever_the_policy(nursery, tmp_path):
    for policy in (None, state(None, never_touch=["bank.test"]), state(NARROW)):
        h = harness(nursery, tmp_path, policy)
        ws = h.workspace(TAB)
        for url in ("file:///etc/passwd", "FILE:///home/u/.ssh/id_rsa", "view-source:file:///etc/hosts"):
            out = await h.call("navigate", {"url": url, "tabId": TAB}, ws)
            assert out.kind == "denied" and DENIAL.match(text(out)), text(out)
        assert h.browser.navigations == []
        if policy is None:
            assert "(the computer's own files) are never opened for an agent" in text(out)
            assert {r["rule"] for r in h.records()} == {"protected/file"}


PRIVILEGED_PAGES = (
    "chrome-extension://hgjbmbmgbodbkmedffdmejgepdfckjpe/manifest.json",
    "CHROME-EXTENSION://hgjbmbmgbodbkmedffdmejgepdfckjpe/service-worker.js",
    "chrome://settings/passwords",
    "chrome-untrusted://print/",
    "devtools://devtools/bundled/inspector.html",
    "edge://settings",
    "about:settings",
    "view-source:chrome-extension://hgjbmbmgbodbkmedffdmejgepdfckjpe/manifest.json",
    "blob:chrome-extension://hgjbmbmgbodbkmedffdmejgepdfckjpe/0f3c",
)


async def test_the_browsers_and_extensions_own_pages_are_never_opened_whatever_the_policy(
    nursery, tmp_path
):
    everything = manifest(grant("all", ["*"], ["read", "action", "write", "execute"]))
    rules = set()
    for index, policy in enumerate((None, state(None, never_touch=["bank.test"]), state(everything))):
        for number, url in enumerate(PRIVILEGED_PAGES):
            place = tmp_path / f"{index}-{number}"  # one workspace each: no attention pause
            place.mkdir()
            h = harness(nursery, place, policy)
            ws = h.workspace(TAB)
            out = await h.call("navigate", {"url": url, "tabId": TAB}, ws)
            assert out.kind == "denied" and DENIAL.match(text(out)), (url, text(out))
            assert "never opened, read or driven for an agent" in text(out)
            assert h.browser.navigations == []
            [record] = h.records()
            rules.add(record["rule"])
    assert {rule.split("/")[0] for rule in rules} == {"protected"}
    assert {"protected/chrome-extension", "protected/chrome", "protected/about"} <= rules


async def test_a_redirect_or_a_step_back_onto_a_privileged_page_is_parked_in_every_mode(
    nursery, tmp_path
):
    own = PRIVILEGED_PAGES[0]
    for index, policy in enumerate((None, state(NARROW))):
        place = tmp_path / str(index)
        place.mkdir()
        h = harness(nursery, place, policy)
        h.engine.handlers["navigate"] = navigating_handler(
            h.browser, {"https://docs.example.com/go": own, "back": own}
        )
        ws = h.workspace(TAB)
        h.browser.urls[TAB] = "https://docs.example.com/"
        for target in ("https://docs.example.com/go", "back"):
            out = await h.call("navigate", {"url": target, "tabId": TAB}, ws)
            assert out.kind == "denied" and "chrome-extension: pages" in text(out), text(out)
            assert h.browser.urls[TAB] == "about:blank"
        records = h.records()
        assert [(r["decision"], r["rule"]) for r in records] == [
            ("deny", "protected/chrome-extension")
        ] * 2


async def test_a_call_the_browser_refused_on_a_privileged_page_is_a_recorded_denial(
    nursery, tmp_path
):
    from ghostlight_trio.browser.errors import BrowserError
    from ghostlight_trio.browser.failures import failure_result

    async def refused(call: ToolCall) -> ToolResult:
        return failure_result(
            BrowserError(
                "Tab 7 shows a chrome-extension: page, which no agent may read, script, capture"
                " or drive; nothing was sent",
                code="protected_page",
            )
        )

    h = harness(nursery, tmp_path)
    h.engine.handlers["javascript_tool"] = refused
    ws = h.workspace(TAB)
    args = {"action": "javascript_exec", "text": "chrome.tabs.query({})", "tabId": TAB}
    out = await h.call("javascript_tool", args, ws)
    assert out.kind == "denied" and DENIAL.match(text(out)), text(out)
    assert "shows a chrome-extension: page" in text(out)
    assert "never let into the browser's own pages" in text(out)
    [record] = h.records()
    assert (record["decision"], record["rule"]) == ("deny", "protected/page")


async def test_never_touch_is_never_shadowed_by_observe_mode(nursery, tmp_path):
    observe = manifest(grant("all", ["*"], ["read", "action", "write", "execute"]), mode="observe")
    h = harness(nursery, tmp_path, state(observe, never_touch=["bank.test"]))
    ws = h.workspace(TAB)
    out = await h.call("navigate", {"url": "https://bank.test/", "tabId": TAB}, ws)
    assert out.kind == "denied"


async def test_observe_mode_records_a_shadow_deny_and_runs(nursery, tmp_path):
    h = harness(nursery, tmp_path, state(manifest(grant("g", ["a.test"], ["read"]), mode="observe")))
    ws = h.workspace(TAB)
    out = await h.call("navigate", {"url": "https://b.test/", "tabId": TAB}, ws)
    assert out.kind == "ok"
    [record] = h.records()
    assert record["decision"] == "shadow_deny" and record["denial_id"].startswith("D-")


async def test_a_redirect_to_a_denied_host_is_parked_on_about_blank(nursery, tmp_path):
    h = harness(nursery, tmp_path, state(NARROW))
    h.engine.handlers["navigate"] = navigating_handler(
        h.browser, {"https://docs.example.com/go": "https://evil.test/landing?q=1"}
    )
    ws = h.workspace(TAB)
    out = await h.call("navigate", {"url": "https://docs.example.com/go", "tabId": TAB}, ws)
    assert out.kind == "denied" and "landed on evil.test" in text(out) and DENIAL.match(text(out))
    assert h.browser.urls[TAB] == "about:blank"
    assert h.browser.navigations == [(TAB, "https://docs.example.com/go"), (TAB, "about:blank")]
    [record] = h.records()
    assert (record["host"], record["decision"], record["effects"]) == ("evil.test", "deny", 2)


async def test_a_navigation_still_under_way_is_recorded_by_its_target_not_the_page_it_leaves(
    nursery, tmp_path
):
    for policy in (None, state(NARROW)):
        place = tmp_path / ("open" if policy is None else "narrow")
        place.mkdir()
        h = harness(nursery, place, policy)
        h.engine.handlers["navigate"] = navigating_handler(
            h.browser, unanswered=frozenset({"https://docs.example.com/slow"})
        )
        ws = h.workspace(TAB)
        h.browser.urls[TAB] = "about:blank"
        out = await h.call("navigate", {"url": "https://docs.example.com/slow", "tabId": TAB}, ws)
        assert out.kind == "ok", text(out)
        [record] = h.records()
        # A replay against a policy that denies docs.example.com must see this call.
        assert record["host"] == "docs.example.com", record
        assert record["rule"] != "blank"


async def test_hold_stops_calls_and_retires_queued_work_until_resume(nursery, tmp_path, autojump_clock):
    h = harness(nursery, tmp_path)
    ws = h.workspace(TAB)
    started = trio.Event()

    async def slow(call: ToolCall) -> ToolResult:
        async def effect() -> None:
            started.set()
            await trio.sleep(5)

        await call.effects.atomic(effect)
        return ToolResult.text("slow done")

    h.engine.handlers["get_page_text"] = slow
    running = h.start("get_page_text", {"tabId": TAB}, ws)
    await started.wait()
    queued = h.start("get_page_text", {"tabId": TAB}, ws)  # waits for the tab
    await trio.sleep(0.1)
    h.governor.hold()
    assert (await h.outcome(queued)).kind == "held"
    assert "NOT executed" in text(h.outcomes[queued])
    assert (await h.outcome(running)).kind == "ok"  # in flight: allowed to finish
    later = await h.call("computer", {"action": "screenshot", "tabId": TAB}, ws)
    assert later.kind == "held" and "taken control" in text(later)
    h.governor.resume()
    assert (await h.call("computer", {"action": "screenshot", "tabId": TAB}, ws)).kind == "ok"
    await h.settled()
    decisions = [(r["decision"], r["rule"], r["outcome"]) for r in h.records()]
    assert ("held", "hold", "held") in decisions and len(decisions) == 4


async def test_panic_stops_in_flight_work_after_its_effect_drains(nursery, tmp_path, autojump_clock):
    h = harness(nursery, tmp_path)
    ws = h.workspace(TAB)
    drained: list[float] = []
    started = trio.Event()

    async def two_steps(call: ToolCall) -> ToolResult:
        async def effect() -> None:
            started.set()
            await trio.sleep(3)
            drained.append(trio.current_time())

        await call.effects.atomic(effect)
        await call.effects.checkpoint()
        await call.effects.atomic(effect)
        return ToolResult.text("both")

    h.engine.handlers["computer"] = two_steps
    work = h.start("computer", {"action": "screenshot", "tabId": TAB}, ws)
    await started.wait()
    h.governor.panic()
    out = await h.outcome(work)
    assert out.kind == "cancelled" and "kill switch" in text(out)
    assert len(drained) == 1  # the dispatched effect drained; the second never started
    refused = await h.call("update_plan", {"domains": ["x"], "approach": ["y"]})
    assert refused.kind == "held" and "kill switch" in text(refused)
    h.governor.resume()
    assert (await h.call("update_plan", {"domains": ["x"], "approach": ["y"]})).kind == "ok"


async def test_repeated_denials_open_the_attention_circuit_for_that_workspace(nursery, tmp_path):
    h = harness(nursery, tmp_path, state(NARROW))
    ws = h.workspace(TAB)
    other = h.workspace(OTHER_TAB)
    for _ in range(3):
        out = await h.call("navigate", {"url": "https://evil.test/", "tabId": TAB}, ws)
        assert out.kind == "denied"
    paused = await h.call("navigate", {"url": "https://docs.example.com/", "tabId": TAB}, ws)
    assert paused.kind == "held" and "Attention required" in text(paused)
    elsewhere = await h.call("navigate", {"url": "https://docs.example.com/", "tabId": OTHER_TAB}, other)
    assert elsewhere.kind == "ok"
    h.governor.resume()
    assert (await h.call("navigate", {"url": "https://docs.example.com/", "tabId": TAB}, ws)).kind == "ok"


async def test_tabs_outside_the_workspace_pause_it_alike_whoever_owns_them(nursery, tmp_path):
    """Naming tabs outside the workspace again and again is stopped for the user to see, and
    an unknown id and another workspace's id are answered and counted alike: neither the
    denial nor when the pause comes tells a client whose a tab is."""
    paused_after = {}
    for guess in ("unknown", "foreign"):
        (tmp_path / guess).mkdir()
        h = harness(nursery, tmp_path / guess)
        ws = h.workspace(TAB)
        other = h.workspace(OTHER_TAB)
        tab = 987654 if guess == "unknown" else OTHER_TAB
        answers = []
        for _ in range(4):
            answers.append(await h.call("get_page_text", {"tabId": tab}, ws))
            if answers[-1].kind != "denied":
                break
        assert answers[0].kind == "denied"
        assert text(answers[0]) == texts.tab_not_in_workspace(tab)
        paused_after[guess] = len(answers) - 1
        paused = await h.call("get_page_text", {"tabId": TAB}, ws)
        assert paused.kind == "held" and "Attention required" in text(paused)
        assert (await h.call("get_page_text", {"tabId": OTHER_TAB}, other)).kind == "ok"
        assert h.calls.count("get_page_text") == 1  # only the other workspace's own call ran
    assert paused_after == {"unknown": 3, "foreign": 3}


async def test_its_own_tabs_that_left_are_denied_without_pausing_the_workspace(nursery, tmp_path):
    """A tab the user closed or moved out was the workspace's own: naming it again is no probe
    of anyone else's tabs, so it is denied with what happened to it and never pauses."""
    h = harness(nursery, tmp_path)
    moved_out = TAB + 1
    ws = h.workspace(TAB, moved_out)
    h.workspaces.tab_closed(TAB)
    h.workspaces.tab_released(moved_out)
    answers = [await h.call("get_page_text", {"tabId": tab}, ws) for tab in [TAB, moved_out] * 4]
    assert {o.kind for o in answers} == {"denied"}
    assert text(answers[0]) == texts.tab_left_workspace(TAB)
    assert text(answers[1]) == texts.tab_left_workspace(moved_out)
    assert "no longer in this workspace: it was closed, or moved out" in text(answers[0])
    assert h.calls.count("get_page_text") == 0
    created = await h.call("tabs_context_mcp", {}, ws)
    assert created.kind == "ok", text(created)  # not paused
    # Another workspace naming those tabs gets the one denial every unknown tab gets.
    other = h.workspace(OTHER_TAB)
    foreign = await h.call("get_page_text", {"tabId": TAB}, other)
    assert text(foreign) == texts.tab_not_in_workspace(TAB)


async def test_a_tab_id_that_is_no_whole_number_is_a_mistake_not_a_denial(nursery, tmp_path):
    """Argument mistakes never pause a workspace: only denials count."""
    h = harness(nursery, tmp_path)
    ws = h.workspace(TAB)
    mistakes = [await h.call("get_page_text", {"tabId": 1.5}, ws) for _ in range(6)]
    assert {o.kind for o in mistakes} == {"tool_error"}
    assert "tabId must be a whole number" in text(mistakes[0]) and "1.5" in text(mistakes[0])
    assert (await h.call("get_page_text", {"tabId": TAB}, ws)).kind == "ok"


async def test_a_paused_workspace_still_dry_runs_a_script_and_its_steps_meet_the_pause(
    nursery, tmp_path
):
    handlers = {**_handlers(FakeBrowser(), []), "script": run_script, "browser_batch": run_batch}
    h = GovernedHarness(nursery, handlers, tmp_path / "audit.jsonl", None, browser=FakeBrowser())
    ws = h.workspace(TAB)
    for _ in range(3):
        await h.call("get_page_text", {"tabId": 987654}, ws)
    steps = [{"tool": "get_page_text", "args": {"tabId": TAB}}]
    dry = await h.call("script", {"steps": steps, "dry_run": True}, ws)
    assert dry.kind == "ok" and "1/1 steps would be accepted" in text(dry), text(dry)
    ran = await h.call("script", {"steps": steps}, ws)
    assert ran.kind == "held" and "Attention required" in text(ran), text(ran)


async def test_a_restriction_only_tightens(nursery, tmp_path):
    h = harness(nursery, tmp_path, state(NARROW))
    ws = h.workspace(TAB)
    only_org = manifest(grant("r", ["*.example.org"], ["read"]))
    target = {"url": "https://docs.example.com/", "tabId": TAB}
    assert (await h.call("navigate", target, ws)).kind == "ok"
    narrowed = await h.call("navigate", target, ws, restriction=only_org)
    assert narrowed.kind == "denied"
    # The agent is told whose rule it met: its own client's restriction, not the user's policy.
    assert "by the restriction your client sent with this request" in text(narrowed)
    assert "by the user's policy" not in text(narrowed)
    widen = manifest(grant("w", ["*"], ["read", "action", "write", "execute"]))
    still = await h.call("navigate", {"url": "https://evil.test/", "tabId": TAB}, ws, restriction=widen)
    assert still.kind == "denied"  # a restriction can never widen
    broken = await h.call("navigate", target, ws, restriction={"grants": "everything"})
    assert broken.kind == "denied" and "restriction" in text(broken)
    records = h.records()
    assert records[1]["rule"] == "unmatched_domain" and records[3]["rule"] == "restriction_invalid"
    users = await h.call("navigate", {"url": "https://evil.test/", "tabId": TAB}, ws)
    assert DENIAL.match(text(users)) and ") by the user's policy: " in text(users)


async def test_hostless_decisions_follow_a_policy_reload(nursery, tmp_path):
    """Calls judged without a host are decided once per requirement and policy; a reload
    (a new policy state) must be decided afresh, never served from the old policy."""
    reader = manifest(grant("reader", ["docs.example.com"], ["read"]))
    writer = manifest(grant("writer", ["docs.example.com"], ["write"]))
    h = harness(nursery, tmp_path, state(reader))
    ws = h.workspace(TAB)
    before = [await h.call("tabs_context_mcp", {}, ws) for _ in range(2)]
    h.governor.set_state(state(writer))
    after = await h.call("tabs_context_mcp", {}, ws)
    assert [o.kind for o in before] == ["ok", "ok"]
    assert after.kind == "denied" and "tabs_context_mcp needs read, which no grant allows" in text(after)
    records = h.records()
    assert [(r["decision"], r["rule"]) for r in records] == [
        ("allow", "domainless"), ("allow", "domainless"), ("deny", "capability")
    ]
    assert records[0]["manifest"] == records[1]["manifest"] != records[2]["manifest"]
    assert records[2]["denial_id"] == DENIAL.match(text(after)).group(0)[8:18]


async def test_a_listing_names_tabs_on_sites_that_may_not_be_read_by_origin_only(nursery, tmp_path):
    """tabs_context_mcp lists each tab's URL and title: for a tab on a never-touch site (a popup
    the workspace adopted, say) those are page content, so only its origin is shown."""
    browser = FakeBrowser()
    listing = {"mcpGroupId": 1, "tabs": [
        {"tabId": TAB, "title": "Docs home", "url": "https://docs.example.com/a"},
        {"tabId": OTHER_TAB, "title": "Balance: 1,234", "url": "https://bank.test/acct?id=9"},
    ]}  # fmt: skip

    async def listed(call: ToolCall) -> ToolResult:
        return ToolResult.text(json.dumps(listing), structured=listing)

    handlers = {**_handlers(browser, []), "tabs_context_mcp": listed}
    h = GovernedHarness(
        nursery, handlers, tmp_path / "audit.jsonl", state(NARROW, never_touch=["bank.test"]),
        browser=browser,
    )  # fmt: skip
    ws = h.workspace(TAB, OTHER_TAB)
    out = await h.call("tabs_context_mcp", {}, ws)
    assert out.kind == "ok", text(out)
    assert "Balance" not in text(out) and "acct" not in text(out)
    assert "Docs home" in text(out) and "https://docs.example.com/a" in text(out)
    shown = out.structured["tabs"][1]
    assert shown["url"] == "https://bank.test/" and shown["title"].startswith("(withheld: bank.test")


async def test_a_frame_of_a_never_touch_site_inside_an_allowed_page_is_judged_on_its_own(
    nursery, tmp_path
):
    """A click allowed on the page is refused where it would land in an embedded frame of a
    never-touch or denied site: the handler asks the gate before it sends anything."""
    browser = FakeBrowser()
    answers: list[str | None] = []

    async def clicking(call: ToolCall) -> ToolResult:
        for url in ("https://bank.test/pay", "https://docs.example.com/inner", "https://evil.test/"):
            answers.append(call.effects.denied_at(url))
        return ToolResult.text("clicked")

    handlers = {**_handlers(browser, []), "computer": clicking}
    h = GovernedHarness(
        nursery, handlers, tmp_path / "audit.jsonl", state(NARROW, never_touch=["bank.test"]),
        browser=browser,
    )  # fmt: skip
    ws = h.workspace(TAB)
    browser.urls[TAB] = "https://docs.example.com/"
    await h.call("computer", {"action": "left_click", "coordinate": [1, 1], "tabId": TAB}, ws)
    bank, same, evil = answers
    assert bank is not None and "inside an embedded frame of bank.test" in bank
    assert "never-touch" in bank
    assert same is None
    assert evil is not None and "evil.test" in evil


async def test_a_tool_the_policy_keeps_off_the_list_is_denied_and_audited_not_unknown(
    nursery, tmp_path
):
    """The catalog leaves out what no grant could allow, but an agent may know the tool from
    training and call it anyway: that is a call the policy refuses (said, audited, counted by
    the attention circuit), not an unknown name."""
    h = harness(nursery, tmp_path, state(NARROW))
    advertise(h.governor, h.engine.catalog, _handlers(h.browser, []).keys())
    assert "javascript_tool" not in {spec.name for spec in h.engine.catalog.advertised()}
    ws = h.workspace(TAB)
    h.browser.urls[TAB] = "https://docs.example.com/"
    script = {"action": "javascript_exec", "text": "1", "tabId": TAB}
    for _ in range(4):
        out = await h.call("javascript_tool", script, ws)
        assert out.kind in ("denied", "held"), text(out)
    assert out.kind == "held" and "Attention required" in text(out)  # the circuit counted them
    assert "Unknown tool" not in text(out) and h.calls == []
    first = h.records()[0]
    assert (first["tool"], first["decision"]) == ("javascript_tool", "deny")
    with pytest.raises(AssertionError, match="Rejected.*unknown_tool"):
        h.start("no_such_tool", {}, ws)  # a name no build has stays unknown


async def test_a_pause_carries_to_a_new_workspace_after_the_client_went_through_many(
    nursery, tmp_path
):
    """A stream holds its 16 most recent workspaces; going through more of them first does not
    make a paused client's next minted workspace a fresh, unpaused one."""
    h = harness(nursery, tmp_path, state(NARROW))
    paused = h.workspace(TAB)
    for _ in range(3):
        await h.call("navigate", {"url": "https://evil.test/", "tabId": TAB}, paused)
    assert (await h.call("tabs_context_mcp", {}, paused)).kind == "held"
    others = [h.workspace() for _ in range(20)]  # opened before: none of them is paused
    for other in others:
        assert (await h.call("tabs_context_mcp", {}, other)).kind == "ok"
    minted = await h.call("tabs_context_mcp", {}, None)
    assert minted.kind == "held", text(minted)


async def test_a_recording_whose_tab_left_is_judged_at_its_frames_pages_never_at_the_tab(
    nursery, tmp_path
):
    """Status, stop, clear and an export to the caller still reach a recording once its tab
    left the workspace; the tab, perhaps another workspace's now, is never read. The export
    is a read of what the frames show, judged at each of their pages (never-touch first);
    the rest needs nothing of a page. Anything that would reach the tab stays refused."""
    browser, calls = FakeBrowser(), []
    pages: dict[int, list[str]] = {TAB: ["https://docs.example.com/a", "https://docs.example.com/b"]}
    asked: list[tuple[str, int]] = []

    def held_pages(workspace, tab):
        asked.append((workspace, tab))
        return pages.get(tab, [])

    h = GovernedHarness(
        nursery, {"gif_creator": page_handler(browser, calls)}, tmp_path / "audit.jsonl",
        state(NARROW, never_touch=["bank.test"]), browser=browser, held_pages=held_pages,
    )  # fmt: skip
    ws = h.workspace(TAB)
    browser.urls[TAB] = "https://bank.test/"  # where the tab is now: it must not matter
    h.workspaces.tab_closed(TAB)
    for action in ("status", "stop_recording", "clear"):
        answer = await h.call("gif_creator", {"tabId": TAB, "action": action}, ws)
        assert answer.kind == "ok", (action, text(answer))
    assert asked == []  # they need nothing of a page
    exported = await h.call("gif_creator", {"tabId": TAB, "action": "export", "download": True}, ws)
    assert exported.kind == "ok", text(exported)
    assert asked == [(ws, TAB)] and calls == ["gif_creator"] * 4
    pages[TAB].append("https://bank.test/statement")
    never_touch = await h.call("gif_creator", {"tabId": TAB, "action": "export", "download": True}, ws)
    assert never_touch.kind == "denied" and "bank.test" in text(never_touch), text(never_touch)
    pages[TAB] = ["https://elsewhere.test/"]
    closed = await h.call("gif_creator", {"tabId": TAB, "action": "export", "download": True}, ws)
    assert closed.kind == "denied" and DENIAL.match(text(closed)), text(closed)
    for refused in ({"action": "start_recording"}, {"action": "export", "ref": "ref_1"}):
        answer = await h.call("gif_creator", {"tabId": TAB, **refused}, ws)
        assert answer.kind == "denied" and text(answer) == texts.tab_left_workspace(TAB)
    other = h.workspace(OTHER_TAB)
    foreign = await h.call("gif_creator", {"tabId": TAB, "action": "status"}, other)
    assert text(foreign) == texts.tab_not_in_workspace(TAB)
    assert calls == ["gif_creator"] * 4 and browser.probes == 0
    await h.settled()
    exports = [r for r in h.records() if r["action"] == "export"]
    assert [(r["host"], r["decision"]) for r in exports] == [
        ("docs.example.com", "allow"), ("bank.test", "deny"), ("elsewhere.test", "deny"),
        (None, "deny"),
    ]  # fmt: skip


async def test_a_workspace_minted_after_naming_a_lost_one_is_excused_its_old_tab_ids(
    nursery, tmp_path
):
    """A stateless client names its workspace on every call: after a service restart the
    service does not know it, and the client mints a new one on the same connection. Its
    first tries with its old tab ids are denied alike but not counted; then they count."""
    h = harness(nursery, tmp_path)
    h._sequence += 1
    stale = h.session.start(
        Start(sequence=h._sequence, operation="get_page_text", arguments={"tabId": TAB},
              workspace_id="lost-in-the-restart")
    )  # fmt: skip
    assert isinstance(stale, Rejected) and stale.code == "unknown_workspace"
    minted = await h.call("tabs_context_mcp", {})
    assert minted.kind == "ok" and minted.workspace_id is not None
    ws = minted.workspace_id
    answers = [await h.call("get_page_text", {"tabId": TAB + n}, ws) for n in range(8)]
    assert {a.kind for a in answers} == {"denied"}
    assert {text(a) for a in answers[:2]} == {texts.tab_not_in_workspace(TAB), texts.tab_not_in_workspace(TAB + 1)}
    listed = await h.call("tabs_create_mcp", {}, ws)
    assert listed.kind == "ok", text(listed)  # not paused
    answers = [await h.call("get_page_text", {"tabId": TAB + n}, ws) for n in range(3)]
    assert {a.kind for a in answers} == {"denied"}
    paused = await h.call("tabs_create_mcp", {}, ws)
    assert paused.kind == "held" and "Attention required" in text(paused)
    again = await h.call("tabs_context_mcp", {})  # a later mint on this connection: no grace
    assert again.kind == "held"  # the pause follows the client
    await h.settled()
    assert [r["rule"] for r in h.records()].count("unowned_tab") == 11
