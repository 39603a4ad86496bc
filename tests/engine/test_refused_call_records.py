"""What the audit record and the answer say about a call refused before the gate judged it."""

from __future__ import annotations

import trio
from browser.session_driver import text  # tests/ is on sys.path (rootdir packages)

from ghostlight_trio.engine.audit import AuditRecord
from ghostlight_trio.engine.contracts import ToolCall, ToolResult
from ghostlight_trio.scheduler import TabSurface
from ghostlight_trio.workspace import split_tab_id

from .harness import OTHER_TAB, TAB, Harness


async def fine(call: ToolCall) -> ToolResult:
    return ToolResult.text("fine")


HANDLERS = {"computer": fine, "tab_control": fine, "form_fill": fine, "act_on": fine}


async def record_of(h: Harness, tool: str, arguments: dict[str, object], ws: str) -> AuditRecord:
    work = h.work_id(h.start(tool, arguments, ws))
    await trio.sleep(0.1)
    (record,) = [r for r in h.audit if r.work_id == work]
    return record


async def test_bad_arguments_keep_a_declared_action(nursery):
    h = Harness(nursery, HANDLERS)
    ws = h.workspace(TAB)
    record = await record_of(h, "computer", {"action": "left_click", "tabId": TAB, "bogus": 1}, ws)
    assert record.outcome == "tool_error" and record.decision is None
    assert record.action == "left_click"


async def test_an_undeclared_action_is_never_recorded(nursery):
    h = Harness(nursery, HANDLERS)
    ws = h.workspace(TAB)
    for action in ("bogus", "left_click\n", 5, None):
        record = await record_of(h, "computer", {"action": action, "tabId": TAB}, ws)
        assert record.outcome == "tool_error"
        assert record.action is None, action


async def test_an_action_offered_before_any_row_classifies_it_is_declared(nursery):
    """``act_on`` lists ``set_value`` in its schema without a capability row of its own."""
    h = Harness(nursery, HANDLERS)
    ws = h.workspace(TAB)
    record = await record_of(h, "act_on", {"action": "set_value", "tabId": TAB}, ws)
    assert record.outcome == "tool_error" and record.action == "set_value"


async def test_a_submitting_form_fill_is_recorded_as_submit(nursery):
    h = Harness(nursery, HANDLERS)
    ws = h.workspace(TAB)
    submitting = await record_of(h, "form_fill", {"tabId": TAB, "submit": True}, ws)
    filling = await record_of(h, "form_fill", {"tabId": TAB, "submit": False}, ws)
    assert (submitting.action, filling.action) == ("submit", None)


async def test_a_tab_outside_the_workspace_keeps_the_action(nursery):
    h = Harness(nursery, HANDLERS)
    ws = h.workspace(TAB)
    record = await record_of(h, "tab_control", {"action": "close", "tabId": OTHER_TAB}, ws)
    assert (record.outcome, record.rule, record.action) == ("denied", "unowned_tab", "close")


async def test_a_quarantined_tab_keeps_the_action(nursery):
    h = Harness(nursery, HANDLERS)
    ws = h.workspace(TAB)
    h.scheduler.quarantine(TabSurface(*split_tab_id(TAB)), "proof")
    record = await record_of(h, "computer", {"action": "screenshot", "tabId": TAB}, ws)
    assert record.outcome == "tool_error" and record.decision is None
    assert record.action == "screenshot"


async def test_a_whole_float_tab_id_is_echoed_as_the_agent_knows_it(nursery):
    h = Harness(nursery, HANDLERS)
    ws = h.workspace(TAB)
    work = h.work_id(h.start("computer", {"action": "screenshot", "tabId": 12.0}, ws))
    await trio.sleep(0.1)
    outcome = h.only_outcome(work)
    assert outcome.kind == "denied"
    assert text(outcome).startswith("Tab 12 is not in this workspace")
