"""script and browser_batch through the real engine: every step is a call of its own (validated,
owned, leased, audited as ``<work id>/<n>``), a composition stops between steps, and what it
reports is what ran. The steps' tools are small fakes whose effects the tests count."""

from __future__ import annotations

import json
from typing import Any

import trio
from browser.session_driver import text  # tests/ is on sys.path (rootdir packages)

from ghostlight_trio.engine.contracts import ToolCall, ToolResult, UncertainEffect, left_unanswered
from ghostlight_trio.engine.limits import EngineLimits
from ghostlight_trio.engine.runner import STEP_DRAIN_S
from ghostlight_trio.scheduler import TabSurface
from ghostlight_trio.tools.browser_batch import run_batch
from ghostlight_trio.tools.registry import ToolDeps, tool_handlers
from ghostlight_trio.tools.script import run_script
from ghostlight_trio.tools.shared.composition import STEP_CUTOFF_S
from ghostlight_trio.tools.shared.provenance import session_nonce, wrap_page_text
from ghostlight_trio.workspace import split_tab_id

from .harness import OTHER_TAB, TAB, Harness


class Tools:
    """Fake navigate / find / computer handlers that record what each step received."""

    def __init__(self, seconds: float = 1.0) -> None:
        self.seconds = seconds
        self.received: list[tuple[str, dict[str, Any]]] = []
        self.effects_done: list[str] = []

    async def _effect(self, call: ToolCall, name: str) -> None:
        self.received.append((name, dict(call.arguments)))

        async def effect() -> None:
            await trio.sleep(self.seconds)
            self.effects_done.append(name)

        await call.effects.atomic(effect)

    async def navigate(self, call: ToolCall) -> ToolResult:
        await self._effect(call, "navigate")
        return ToolResult.text(f"Navigated to {call.arguments['url']}.")

    async def find(self, call: ToolCall) -> ToolResult:
        await self._effect(call, "find")
        return ToolResult.text(
            "1 match", structured={"results": [{"ref": "ref_7", "query": call.arguments["query"]}]}
        )

    async def get_page_text(self, call: ToolCall) -> ToolResult:
        self.received.append(("get_page_text", dict(call.arguments)))
        page = "Page text. " * 500
        return ToolResult.text(wrap_page_text(page, call.context.workspace_id, "https://a.test"))

    async def computer(self, call: ToolCall) -> ToolResult:
        if call.arguments.get("action") == "hover":  # stands for an action whose end is unknown
            self.received.append(("computer", dict(call.arguments)))
            raise UncertainEffect("proof-1")
        if call.arguments.get("action") == "wait":  # a wait sends nothing: a cancel ends it
            self.received.append(("computer", dict(call.arguments)))
            await trio.sleep(float(call.arguments["duration"]))
            return ToolResult.text("waited")
        await self._effect(call, "computer")
        return ToolResult.text(f"{call.arguments['action']} done")

    def handlers(self) -> dict[str, Any]:
        return {
            "navigate": self.navigate,
            "find": self.find,
            "computer": self.computer,
            "get_page_text": self.get_page_text,
            "script": run_script,
            "browser_batch": run_batch,
        }


def harness(nursery: trio.Nursery, tools: Tools) -> tuple[Harness, str]:
    h = Harness(nursery, tools.handlers())
    return h, h.workspace(TAB)


NAV = {"name": "navigate", "input": {"url": "https://a.test", "tabId": TAB}}
FIND = {"name": "find", "input": {"query": "Buy", "tabId": TAB}}


async def run(h: Harness, tool: str, arguments: dict[str, Any], ws: str, seconds: float = 60):
    work = h.work_id(h.start(tool, arguments, ws))
    await trio.sleep(seconds)
    return work, h.only_outcome(work)


async def test_a_batch_runs_each_step_as_its_own_audited_call(autojump_clock, nursery):
    tools = Tools()
    h, ws = harness(nursery, tools)
    work, outcome = await run(h, "browser_batch", {"actions": [NAV, FIND]}, ws)
    assert outcome.kind == "ok"
    assert [name for name, _ in tools.received] == ["navigate", "find"]
    assert tools.effects_done == ["navigate", "find"]
    lines = [block.text for block in outcome.content]
    assert lines == [
        "step 1 (navigate) ok: Navigated to https://a.test.",
        "step 2 (find) ok: 1 match",
        "2/2 steps completed",
    ]
    assert outcome.structured is None
    records = {record.work_id: record for record in h.audit}
    assert records[f"{work}/1"].operation == "navigate"
    assert records[f"{work}/2"].operation == "find"
    assert records[f"{work}/1"].outcome == records[f"{work}/2"].outcome == "ok"
    assert records[work].operation == "browser_batch"
    assert records[work].effects_dispatched == 2


async def test_a_batch_stops_at_the_first_step_that_fails_and_runs_nothing_after(
    autojump_clock, nursery
):
    tools = Tools()
    h, ws = harness(nursery, tools)
    bad = {"name": "navigate", "input": {"tabId": TAB}}  # no url: refused by the schema
    _, outcome = await run(h, "browser_batch", {"actions": [FIND, bad, NAV]}, ws)
    assert outcome.kind == "tool_error"
    assert [name for name, _ in tools.received] == ["find"]
    lines = [block.text for block in outcome.content]
    assert lines[1].startswith("step 2 (navigate) error: Invalid arguments for navigate:")
    assert "'url'" in lines[1]
    assert lines[-1] == "1/3 steps completed; step 2 failed; step 3 not run"


async def test_a_step_on_a_foreign_tab_is_denied_before_anything_reaches_it(
    autojump_clock, nursery
):
    tools = Tools()
    h, ws = harness(nursery, tools)
    h.workspace(OTHER_TAB)  # another client's tab
    foreign = {"name": "navigate", "input": {"url": "https://b.test", "tabId": OTHER_TAB}}
    work, outcome = await run(h, "browser_batch", {"actions": [foreign, NAV]}, ws)
    assert tools.received == []
    assert "denied" in outcome.content[0].text and "not in this workspace" in text(outcome)
    assert outcome.kind == "denied"  # what ended the batch, also in its own audit record
    step = next(record for record in h.audit if record.work_id == f"{work}/1")
    assert step.outcome == "denied" and step.rule == "unowned_tab"
    parent = next(record for record in h.audit if record.work_id == work)
    assert parent.outcome == "denied"


async def test_an_oversized_batch_is_refused_whole(autojump_clock, nursery):
    tools = Tools()
    h, ws = harness(nursery, tools)
    _, outcome = await run(h, "browser_batch", {"actions": [FIND] * 101}, ws)
    assert outcome.kind == "tool_error"
    assert text(outcome).startswith("browser_batch takes at most 100 actions (got 101); nothing ran.")
    assert tools.received == [] and len(h.audit) == 1


async def test_compositions_do_not_nest_and_unknown_tools_are_named(autojump_clock, nursery):
    tools = Tools()
    h, ws = harness(nursery, tools)
    inner = {"name": "browser_batch", "input": {"actions": [NAV]}}
    _, outcome = await run(h, "browser_batch", {"actions": [inner]}, ws)
    assert "cannot run as a step of another composition" in text(outcome)
    script = {"tool": "script", "args": {"steps": [{"tool": "navigate"}]}}
    _, outcome = await run(h, "script", {"steps": [script]}, ws)
    assert "cannot run as a step of another composition" in text(outcome)
    _, outcome = await run(h, "browser_batch", {"actions": [{"name": "teleport", "input": {}}]}, ws)
    assert "Unknown tool 'teleport' in this step" in text(outcome)
    assert tools.received == []


def script_body(outcome: Any) -> dict[str, Any]:
    body = json.loads(text(outcome))
    assert body == outcome.structured
    return body


async def test_script_steps_use_earlier_structured_results_and_the_scripts_tab(
    autojump_clock, nursery
):
    tools = Tools()
    h, ws = harness(nursery, tools)
    steps = [
        {"tool": "find", "args": {"query": "$$5 off"}},
        {"tool": "computer", "args": {"action": "left_click", "ref": "$prev.results.0.ref"}},
        {"tool": "find", "args": {"query": "$1.results.0.query"}},
    ]
    _, outcome = await run(h, "script", {"tabId": TAB, "steps": steps}, ws)
    assert outcome.kind == "ok", text(outcome)
    assert tools.received == [
        ("find", {"query": "$5 off", "tabId": TAB}),
        ("computer", {"action": "left_click", "ref": "ref_7", "tabId": TAB}),
        ("find", {"query": "$5 off", "tabId": TAB}),
    ]
    body = script_body(outcome)
    assert [r["status"] for r in body["results"]] == ["ok", "ok", "ok"]
    assert body["results"][0]["structured"]["results"][0]["ref"] == "ref_7"
    assert body["summary"] == "3/3 steps completed"


async def test_a_reference_to_nothing_fails_its_step_without_running_it(autojump_clock, nursery):
    tools = Tools()
    h, ws = harness(nursery, tools)
    steps = [
        {"tool": "navigate", "args": {"url": "https://a.test"}},
        {"tool": "computer", "args": {"action": "left_click", "ref": "$prev.results.0.ref"}},
        {"tool": "find", "args": {"query": "next"}},
    ]
    _, outcome = await run(h, "script", {"tabId": TAB, "steps": steps}, ws)
    body = script_body(outcome)
    assert [r["status"] for r in body["results"]] == ["ok", "error", "not_run"]
    assert "returned no structured result" in body["results"][1]["result"]
    assert body["results"][2] == {"step": 3, "tool": "find", "status": "not_run"}
    assert [name for name, _ in tools.received] == ["navigate"]
    assert outcome.kind == "tool_error"


async def test_on_error_continue_goes_past_errors_but_never_past_an_unknown_outcome(
    autojump_clock, nursery
):
    tools = Tools()
    h, ws = harness(nursery, tools)
    steps = [
        {"tool": "navigate", "args": {}},  # invalid: no url
        {"tool": "find", "args": {"query": "a"}},
        {"tool": "computer", "args": {"action": "hover", "coordinate": [1, 1]}},
        {"tool": "find", "args": {"query": "b"}},
    ]
    _, outcome = await run(h, "script", {"tabId": TAB, "steps": steps, "onError": "continue"}, ws)
    body = script_body(outcome)
    assert [r["status"] for r in body["results"]] == ["error", "ok", "outcome_unknown", "not_run"]
    assert outcome.kind == "outcome_unknown"
    assert body["summary"] == "1/4 steps completed; the outcome of step 3 is unknown"
    # The step's own tab is quarantined by its uncertain effect, as for any call.
    assert h.scheduler.is_quarantined(TabSurface(*split_tab_id(TAB)))
    assert [name for name, _ in tools.received] == ["find", "computer"]


async def test_a_cancelled_composition_stops_between_steps_and_says_what_ran(
    autojump_clock, nursery
):
    tools = Tools(seconds=5)
    h, ws = harness(nursery, tools)
    work = h.work_id(h.start("browser_batch", {"actions": [NAV, FIND, NAV]}, ws))
    await trio.sleep(7)  # inside step 2's effect
    h.session.cancel(work)
    await trio.sleep(30)
    assert tools.effects_done == ["navigate", "find"]  # step 2 drained, step 3 never started
    outcome = h.only_outcome(work)
    assert outcome.kind == "cancelled"
    # Step 2's effect drained and it ended ok: the answer says so, and step 3 never became a call.
    done = "Done before it stopped: 2 of 3 steps ran (1 navigate ok, 2 find ok)."
    assert text(outcome).endswith(done)
    records = {record.work_id: record.outcome for record in h.audit}
    assert records[f"{work}/2"] == "ok" and f"{work}/3" not in records


async def test_no_step_starts_once_the_budget_is_spent(autojump_clock, nursery):
    tools = Tools(seconds=20)
    h, ws = harness(nursery, tools)
    steps = [{"tool": "find", "args": {"query": str(n)}} for n in range(4)]
    _, outcome = await run(h, "script", {"tabId": TAB, "steps": steps, "budget_ms": 30_000}, ws)
    body = script_body(outcome)
    assert [r["status"] for r in body["results"]] == ["ok", "ok", "not_run", "not_run"]
    assert body["summary"] == "2/4 steps completed; time budget (30 s) spent after step 2"
    assert len(tools.received) == 2


async def test_a_step_still_running_near_the_reply_deadline_is_stopped_so_the_answer_comes(
    autojump_clock, nursery
):
    tools = Tools(seconds=44)
    h, ws = harness(nursery, tools)
    steps = [
        {"tool": "find", "args": {"query": "Buy"}},
        {"tool": "computer", "args": {"action": "wait", "duration": 10}},  # from 44 s to 54 s
    ]
    work = h.work_id(h.start("script", {"tabId": TAB, "steps": steps}, ws))
    await trio.sleep(55)  # before the caller's 60 s: the script's own answer, not "unknown"
    outcome = h.only_outcome(work)
    body = script_body(outcome)
    assert [r["status"] for r in body["results"]] == ["ok", "cancelled"]
    assert body["summary"] == (
        "1/2 steps completed; step 2 was stopped 52 s into the composition, to answer in time"
    )
    records = {record.work_id: record.outcome for record in h.audit}
    assert records[f"{work}/2"] == "cancelled"


async def test_an_answer_the_reply_deadline_overtakes_still_says_which_steps_ran(
    autojump_clock, nursery
):
    # A reply deadline before the steps' cutoff: step 2's effect, dispatched at 35 s, still
    # drains when the caller's 40 s come.
    tools = Tools(seconds=35)
    h = Harness(nursery, tools.handlers(), engine_limits=EngineLimits(reply_deadline=40.0))
    ws = h.workspace(TAB)
    work = h.work_id(h.start("browser_batch", {"actions": [FIND, NAV]}, ws))
    await trio.sleep(41)
    outcome = h.only_outcome(work)
    assert outcome.kind == "outcome_unknown"
    assert text(outcome).endswith("So far: 1 of 2 steps ran (1 find ok).")


class SpinningPage:
    """The browser side of a page busy in an endless loop: a script sent to it never comes
    back (nor does anything else). A request given up unanswered is named by its proof, as
    the browser shore names it."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    async def request(
        self, workspace_id: Any, op: str, args: dict[str, Any], *, timeout: float, **_: Any  # noqa: ASYNC109
    ) -> dict[str, Any]:
        self.asked.append(f"{op} {args.get('method', '')}".strip())
        try:
            await trio.sleep_forever()
        finally:
            left_unanswered(f"browser:1:r{len(self.asked)}")
        raise AssertionError("unreachable")


async def test_a_step_whose_script_never_answers_is_cut_at_the_cutoff_and_the_report_kept(
    autojump_clock, nursery
):
    """javascript_tool's effect drains shielded once sent: a step still waiting on it at the
    cutoff ends shortly after as that step's unknown outcome, and the script answers with
    every step's report before the caller's 60 s, not "still settling" with the report lost."""
    tools = Tools(seconds=44)
    page = SpinningPage()
    handlers = {
        **tools.handlers(),
        "javascript_tool": tool_handlers(ToolDeps(page, None))["javascript_tool"],  # type: ignore[arg-type]
    }
    h = Harness(nursery, handlers)
    ws = h.workspace(TAB)
    steps = [
        {"tool": "find", "args": {"query": "Buy"}},  # 0 s to 44 s
        {"tool": "javascript_tool", "args": {"action": "javascript_exec", "text": "while (true) {}"}},
        {"tool": "find", "args": {"query": "Sell"}},
    ]
    began = trio.current_time()
    work = h.work_id(h.start("script", {"tabId": TAB, "steps": steps}, ws))
    await trio.sleep(70)
    [(answered_at, outcome)] = h.outcomes(work)
    assert answered_at - began <= STEP_CUTOFF_S + STEP_DRAIN_S + 0.5
    assert page.asked == ["cdp Runtime.evaluate"]
    assert outcome.kind == "outcome_unknown"
    body = script_body(outcome)
    assert [r["status"] for r in body["results"]] == ["ok", "outcome_unknown", "not_run"]
    assert body["results"][0]["structured"]["results"][0]["ref"] == "ref_7"  # step 1 kept
    assert "did not settle within its time bound" in body["results"][1]["result"]
    assert body["summary"] == (
        "1/3 steps completed; the outcome of step 2 is unknown: it was still waiting on the"
        " browser 52 s into the composition and cut there, to answer in time"
    )
    records = {record.work_id: record.outcome for record in h.audit}
    assert records[f"{work}/1"] == "ok" and records[f"{work}/2"] == "outcome_unknown"
    assert records[work] == "outcome_unknown" and f"{work}/3" not in records
    surface = TabSurface(*split_tab_id(TAB))
    assert h.scheduler.is_quarantined(surface)  # what it sent may still run
    assert h.scheduler.clear_proven("browser:1:r1")  # the browser's late answer frees the tab
    assert not h.scheduler.is_quarantined(surface)


async def test_a_dry_run_dispatches_nothing_and_says_what_would_be_refused(
    autojump_clock, nursery
):
    tools = Tools()
    h, ws = harness(nursery, tools)
    h.workspace(OTHER_TAB)
    steps = [
        {"tool": "navigate", "args": {"url": "https://a.test"}},
        {"tool": "navigate", "args": {"url": 5}},
        {"tool": "find", "args": {"query": "x", "tabId": OTHER_TAB}},
        {"tool": "computer", "args": {"action": "left_click", "ref": "$4.ref"}},
        {"tool": "computer", "args": {"action": "left_click", "ref": "$prev.results.0.ref"}},
    ]
    _, outcome = await run(h, "script", {"tabId": TAB, "steps": steps, "dry_run": True}, ws)
    body = script_body(outcome)
    statuses = [r["status"] for r in body["results"]]
    assert statuses == ["would_run", "invalid", "denied", "invalid", "would_run"]
    assert body["summary"].startswith("dry run: 2/5 steps would be accepted; nothing ran.")
    assert tools.received == [] and h.audit[-1].effects_dispatched == 0


async def test_only_the_reference_shape_is_a_reference_and_other_dollars_pass_as_they_are(
    autojump_clock, nursery
):
    tools = Tools()
    h, ws = harness(nursery, tools)
    steps = [
        {"tool": "find", "args": {"query": "$('h1')"}},
        {"tool": "find", "args": {"query": "$ 5"}},
        {"tool": "find", "args": {"query": "$x"}},
        {"tool": "find", "args": {"query": "$100"}},
    ]
    _, outcome = await run(h, "script", {"tabId": TAB, "steps": steps}, ws)
    body = script_body(outcome)
    assert [r["status"] for r in body["results"]] == ["ok", "ok", "ok", "error"]
    assert [args["query"] for _, args in tools.received] == ["$('h1')", "$ 5", "$x"]
    refused = body["results"][3]["result"]
    assert refused == (
        '"$100" refers to an earlier step\'s result, but steps 1 to 3 ran before this one.'
        ' For the text itself, write "$$100" ($$ stands for a literal $). Nothing ran for this step.'
    )


async def test_a_reference_on_the_first_step_says_there_is_no_earlier_step(
    autojump_clock, nursery
):
    tools = Tools()
    h, ws = harness(nursery, tools)
    for value in ("$100", "$prev.results.0.ref"):
        _, outcome = await run(h, "script", {"tabId": TAB, "steps": [
            {"tool": "find", "args": {"query": value}}]}, ws)  # fmt: skip
        [result] = script_body(outcome)["results"]
        assert result["status"] == "error"
        assert "there is no earlier step" in result["result"]
        assert "$$ stands for a literal $" in result["result"]
    _, outcome = await run(h, "script", {"tabId": TAB, "steps": [
        {"tool": "find", "args": {"query": "$$100"}}]}, ws)  # fmt: skip
    assert outcome.kind == "ok" and tools.received == [("find", {"query": "$100", "tabId": TAB})]


async def test_a_long_page_text_cut_in_a_step_keeps_its_closing_fence(autojump_clock, nursery):
    """Page text is fenced as untrusted; a step's text cut short must not leave the fence
    open, or the script's own words after it would read as the page's."""
    tools = Tools()
    h, ws = harness(nursery, tools)
    steps = [{"tool": "get_page_text", "args": {}}, {"tool": "find", "args": {"query": "Buy"}}]
    _, outcome = await run(h, "script", {"tabId": TAB, "steps": steps}, ws)
    assert outcome.kind == "ok", text(outcome)
    closing = f"--- END GHOSTLIGHT PAGE CONTENT {session_nonce(ws)} ---"
    first = script_body(outcome)["results"][0]["result"]
    assert first.endswith(f"(truncated)\n{closing}"), first[-200:]
