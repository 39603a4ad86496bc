"""Admission (Started/Rejected), validation, tab ownership, workspaces minted by calls, audit."""

from __future__ import annotations

import json

import trio
from browser.session_driver import text  # tests/ is on sys.path (rootdir packages)

from ghostlight_trio.audit.log import RotatingAuditLog
from ghostlight_trio.engine.audit import AuditRecord, safe_audit
from ghostlight_trio.engine.contracts import ToolCall, ToolResult
from ghostlight_trio.engine.limits import EngineLimits
from ghostlight_trio.tools.update_plan import PlanBook
from ghostlight_trio.transport.bridge import Progress, Rejected, Started
from ghostlight_trio.workspace import WorkspaceLimits

from .harness import OTHER_TAB, TAB, Harness

NEXT_STEP = "Call tabs_context_mcp (or tabs_create_mcp) first and pass its workspaceId"


class Counting:
    def __init__(self) -> None:
        self.calls: list[ToolCall] = []

    async def __call__(self, call: ToolCall) -> ToolResult:
        self.calls.append(call)
        call.effects.progress(1, 2, "half")
        return ToolResult.text("fine")


async def test_unknown_tool_is_rejected(nursery):
    h = Harness(nursery, {"navigate": Counting()})
    reply = h.start("teleport", {})
    assert isinstance(reply, Rejected) and reply.code == "unknown_tool"
    reply = h.start("get_page_text", {"tabId": TAB})  # in the catalog, but not in this build
    assert isinstance(reply, Rejected) and reply.code == "unknown_tool"
    assert h.sink.messages[-1][1] == reply


async def test_workspace_required_and_unknown_share_the_next_step(nursery):
    tool = Counting()
    h = Harness(nursery, {"navigate": tool})
    missing = h.start("navigate", {"url": "x", "tabId": TAB})
    unknown = h.start("navigate", {"url": "x", "tabId": TAB}, "not-a-workspace")
    assert isinstance(missing, Rejected) and missing.code == "workspace_required"
    assert isinstance(unknown, Rejected) and unknown.code == "unknown_workspace"
    assert missing.next_step == unknown.next_step == NEXT_STEP
    await trio.sleep(0.1)
    assert tool.calls == []


async def test_invalid_arguments_get_the_corrective_text_and_nothing_runs(nursery):
    tool = Counting()
    h = Harness(nursery, {"navigate": tool})
    ws = h.workspace(TAB)
    work = h.work_id(h.start("navigate", {"tabId": TAB, "bogus": 1}, ws))
    await trio.sleep(0.1)
    outcome = h.only_outcome(work)
    assert outcome.kind == "tool_error"
    assert text(outcome) == h.catalog.validate("navigate", {"tabId": TAB, "bogus": 1})
    assert tool.calls == []


async def test_unknown_and_foreign_tabs_get_the_identical_denial(nursery):
    tool = Counting()
    h = Harness(nursery, {"navigate": tool})
    mine = h.workspace(TAB)
    h.workspace(OTHER_TAB)  # another workspace owns OTHER_TAB
    foreign = h.work_id(h.start("navigate", {"url": "x", "tabId": OTHER_TAB}, mine))
    unknown_tab = 3 * 2**32 + 99
    unknown = h.work_id(h.start("navigate", {"url": "x", "tabId": unknown_tab}, mine))
    await trio.sleep(0.1)
    a, b = h.only_outcome(foreign), h.only_outcome(unknown)
    assert a.kind == b.kind == "denied"
    assert text(a) == (
        f"Tab {OTHER_TAB} is not in this workspace (a closed tab leaves it). Use"
        " tabs_context_mcp to list your tabs."
    )
    assert text(a).replace(str(OTHER_TAB), "N") == text(b).replace(str(unknown_tab), "N")
    assert tool.calls == []
    assert h.scheduler.active == 0 and h.scheduler.queued == 0

    owned = h.work_id(h.start("navigate", {"url": "x", "tabId": float(TAB)}, mine))
    await trio.sleep(0.1)
    assert h.only_outcome(owned).kind == "ok"
    assert len(tool.calls) == 1


async def test_creating_tool_mints_a_workspace_and_returns_it(nursery):
    async def context(call: ToolCall) -> ToolResult:
        return ToolResult.text("tabs: none")

    h = Harness(nursery, {"tabs_context_mcp": context})
    work = h.work_id(h.start("tabs_context_mcp", {}))
    await trio.sleep(0.1)
    outcome = h.only_outcome(work)
    assert outcome.kind == "ok" and outcome.workspace_id is not None
    assert h.workspaces.exists(outcome.workspace_id)
    assert h.audit[0].workspace == h.workspaces.fingerprint(outcome.workspace_id)
    assert outcome.workspace_id not in json.dumps([str(r) for r in h.audit])


async def test_failed_creating_call_releases_its_unreturned_workspace(nursery):
    seen: list[str] = []

    async def context(call: ToolCall) -> ToolResult:
        seen.append(call.context.workspace_id)
        return ToolResult.error("no browser")

    h = Harness(nursery, {"tabs_context_mcp": context})
    h.start("tabs_context_mcp", {})
    await trio.sleep(0.1)
    assert not h.workspaces.exists(seen[0])


async def test_workspace_bound_rejects_minting_as_busy(nursery):
    async def context(call: ToolCall) -> ToolResult:
        return ToolResult.text("ok")

    h = Harness(
        nursery, {"tabs_context_mcp": context}, workspace_limits=WorkspaceLimits(max_workspaces=1)
    )
    h.workspace()
    reply = h.start("tabs_context_mcp", {})
    assert isinstance(reply, Rejected) and reply.code == "busy"
    assert "workspace limit" in reply.message


async def test_active_work_map_is_bounded_per_stream(autojump_clock, nursery):
    async def slow(call: ToolCall) -> ToolResult:
        async def effect() -> None:
            await trio.sleep(5)

        await call.effects.atomic(effect)
        return ToolResult.text("ok")

    h = Harness(nursery, {"update_plan": slow}, engine_limits=EngineLimits(max_active_per_stream=2))
    args = {"domains": [], "approach": []}
    assert isinstance(h.start("update_plan", args), Started)
    assert isinstance(h.start("update_plan", args), Started)
    third = h.start("update_plan", args)
    assert isinstance(third, Rejected) and third.code == "busy"
    await trio.sleep(6)
    assert isinstance(h.start("update_plan", args), Started)


async def test_update_plan_runs_service_local_and_progress_only_when_asked(nursery):
    book = PlanBook()
    h = Harness(nursery, {"update_plan": book.update_plan, "navigate": Counting()})
    args = {"domains": ["example.test"], "approach": ["look", "act"]}
    work = h.work_id(h.start("update_plan", args))
    await trio.sleep(0.1)
    outcome = h.only_outcome(work)
    assert outcome.kind == "ok" and "Plan recorded" in text(outcome)

    ws = h.workspace(TAB)
    quiet = h.work_id(h.start("navigate", {"url": "x", "tabId": TAB}, ws))
    loud = h.work_id(h.start("navigate", {"url": "x", "tabId": TAB}, ws, wants_progress=True))
    await trio.sleep(0.1)
    progress = [m.work_id for _, m in h.sink.messages if isinstance(m, Progress)]
    assert progress == [loud] and quiet not in progress
    # Started precedes progress and the outcome for every call.
    order = [type(m).__name__ for _, m in h.sink.messages if getattr(m, "work_id", loud) == loud]
    assert order == ["Started", "Progress", "Outcome"]


async def test_audit_log_appends_and_failures_never_escape(tmp_path, caplog):
    path = tmp_path / "audit.jsonl"
    log = RotatingAuditLog(path)
    record = AuditRecord(
        time=1.0,
        work_id="w",
        operation="navigate",
        workspace="ws-x",
        outcome="ok",
        reported="ok",
        duration=0.5,
    )
    log(record)
    log(record)
    lines = path.read_text().splitlines()
    assert len(lines) == 2 and json.loads(lines[0])["tool"] == "navigate"
    assert oct(path.stat().st_mode & 0o777) == "0o600"

    RotatingAuditLog(tmp_path / "missing" / "audit.jsonl")(record)  # logged, not raised

    def broken(_: AuditRecord) -> None:
        raise RuntimeError("disk on fire")

    safe_audit(broken, record)
    assert "audit" in caplog.text


async def test_the_audit_record_exists_before_the_caller_has_its_answer(nursery):
    """Whoever holds an Outcome can find its record: the record is written first."""
    h = Harness(nursery, {"update_plan": PlanBook().update_plan, "navigate": Counting()})
    seen_when_answered: dict[str, bool] = {}
    post = h.sink.post

    def checking_post(message):
        work_id = getattr(message, "work_id", None)
        if work_id is not None and type(message).__name__ == "Outcome":
            seen_when_answered[work_id] = any(r.work_id == work_id for r in h.audit)
        post(message)

    h.sink.post = checking_post  # type: ignore[method-assign]
    ws = h.workspace(TAB)
    works = [
        h.work_id(h.start("update_plan", {"domains": ["a"], "approach": ["b"]})),
        h.work_id(h.start("navigate", {"tabId": TAB, "bogus": 1}, ws)),  # a validation failure
        h.work_id(h.start("navigate", {"tabId": OTHER_TAB, "url": "x"}, ws)),  # a foreign tab
    ]
    await trio.sleep(0.1)
    assert seen_when_answered == {work: True for work in works}


async def test_a_finished_call_is_freed_without_the_cycle_collector(nursery):
    """Nothing a call leaves behind may form a reference cycle: with the collector off, its
    state must go as soon as the engine lets go of it."""
    import gc
    import weakref

    async def navigate(call: ToolCall) -> ToolResult:
        return await call.effects.atomic(lambda: _landed())

    async def _landed() -> ToolResult:
        return ToolResult.text("landed")

    h = Harness(nursery, {"update_plan": PlanBook().update_plan, "navigate": navigate})
    ws = h.workspace(TAB)
    gc.collect()
    gc.disable()
    try:
        gone = []
        for operation, arguments in (
            ("update_plan", {"domains": ["a.example"], "approach": ["read"]}),
            ("navigate", {"url": "https://a.example", "tabId": TAB}),
        ):
            work = h.work_id(h.start(operation, arguments, ws))
            gone.append(weakref.ref(h.session._active[work]))
            await trio.testing.wait_all_tasks_blocked()
            h.only_outcome(work)
        h.start("update_plan", {"domains": ["b.example"], "approach": ["read"]})  # drops settled deadlines
        await trio.testing.wait_all_tasks_blocked()
        assert [ref() for ref in gone] == [None, None]
    finally:
        gc.enable()


async def test_a_workspace_lives_while_a_stream_that_uses_it_does(autojump_clock, nursery):
    """A 2026-07-28 client names its workspace on each call and may pause between calls as
    long as its user takes: the stream that used the workspace keeps it. Only once the stream
    goes (or has gone on to more workspaces than it may hold) does the idle grace run."""
    h = Harness(
        nursery,
        {"update_plan": Counting()},
        engine_limits=EngineLimits(max_held_workspaces_per_stream=2),
    )
    plan = {"domains": ["example.com"], "approach": ["read"]}

    async def use(workspace: str) -> None:
        work = h.work_id(h.start("update_plan", plan, workspace))
        await trio.sleep(1)
        assert h.only_outcome(work).kind == "ok"

    first = h.workspace(attached=False)  # as a context-creating call mints it
    await use(first)
    await trio.sleep(3600)  # an hour between two calls
    assert h.workspaces.exists(first)
    await use(first)

    newer = [h.workspace(attached=False) for _ in range(2)]
    for workspace in newer:
        await use(workspace)  # the stream now holds these two; the first one's grace starts
    await trio.sleep(121)
    assert not h.workspaces.exists(first)
    assert all(h.workspaces.exists(workspace) for workspace in newer)

    h.session.abandon()
    await trio.sleep(119)
    assert all(h.workspaces.exists(workspace) for workspace in newer)
    await trio.sleep(2)
    assert not any(h.workspaces.exists(workspace) for workspace in newer)


async def test_one_stream_cannot_use_up_the_workspaces_every_client_shares(autojump_clock, nursery):
    """A client minting a workspace per call (a model that forgets its workspaceId) holds only
    its most recent ones; the rest wait out their grace and are ended first when the registry
    is full, so other clients can still open theirs."""
    h = Harness(
        nursery,
        {"tabs_context_mcp": Counting()},
        engine_limits=EngineLimits(max_held_workspaces_per_stream=4),
        workspace_limits=WorkspaceLimits(max_workspaces=8),
    )
    for _ in range(30):
        work = h.work_id(h.start("tabs_context_mcp", {}))
        await trio.sleep(1)
        assert h.only_outcome(work).kind == "ok"
    assert len(h.workspaces) == 8
    held = [s for s in h.workspaces.summaries() if s.held_by_streams]
    assert len(held) == 4  # the stream's most recent, which it keeps
    others = [h.workspaces.open(None, f"client {n}")[0] for n in range(4)]
    assert all(h.workspaces.exists(other) for other in others)  # room made from idle ones
    assert len([s for s in h.workspaces.summaries() if s.held_by_streams]) == 8


async def test_a_stream_s_failed_new_workspaces_do_not_push_out_the_ones_it_uses(autojump_clock, nursery):
    """A new workspace whose first call failed ends at once; it takes no place among the ones
    the stream keeps."""

    async def fails(call: ToolCall) -> ToolResult:
        return ToolResult.error("no browser")

    h = Harness(
        nursery,
        {"tabs_context_mcp": fails, "update_plan": Counting()},
        engine_limits=EngineLimits(max_held_workspaces_per_stream=2),
    )
    kept = h.workspace(attached=False)
    work = h.work_id(h.start("update_plan", {"domains": [], "approach": []}, kept))
    for _ in range(5):
        h.work_id(h.start("tabs_context_mcp", {}))
        await trio.sleep(1)
    assert h.only_outcome(work).kind == "ok"
    await trio.sleep(600)
    assert h.workspaces.exists(kept)


async def test_a_queued_call_whose_tab_left_the_workspace_meanwhile_is_denied_unsent(nursery):
    """Ownership holds when the call gets its turn, not only when it was admitted: a tab the
    user moves into another agent's group while calls wait on it is out of their reach."""
    busy_until = trio.Event()
    ran: list[dict[str, object]] = []

    async def navigate(call: ToolCall) -> ToolResult:
        ran.append(dict(call.arguments))
        if call.arguments["url"] == "first":
            await busy_until.wait()
        return ToolResult.text("done")

    h = Harness(nursery, {"navigate": navigate})
    mine = h.workspace(TAB)
    first = h.work_id(h.start("navigate", {"url": "first", "tabId": TAB}, mine))
    await trio.sleep(0.1)
    queued = h.work_id(h.start("navigate", {"url": "queued", "tabId": TAB}, mine))
    await trio.sleep(0.1)
    assert h.workspaces.tab_released(TAB)
    theirs = h.workspace(TAB)  # the user put the tab in another agent's group
    busy_until.set()
    await trio.sleep(0.1)
    assert h.only_outcome(first).kind == "ok"
    denied = h.only_outcome(queued)
    assert denied.kind == "denied", text(denied)
    assert "no longer in this workspace" in text(denied)
    assert [call["url"] for call in ran] == ["first"]
    after = h.work_id(h.start("navigate", {"url": "theirs", "tabId": TAB}, theirs))
    await trio.sleep(0.1)
    assert h.only_outcome(after).kind == "ok"
    assert h.audit[-2].rule == "unowned_tab" and h.audit[-2].outcome == "denied"


async def test_a_call_on_a_recording_of_a_tab_that_left_waits_in_no_tab_queue(nursery):
    """Once its tab left (here: into another agent's group), a workspace's calls on what the
    service holds for it (a GIF recording's status, or its export to the caller) run as
    service-local work: they neither wait behind nor hold up the tab's new owner. One that
    was queued on the tab when it left goes on too; one that would reach the tab is denied."""
    busy_until = trio.Event()
    ran: list[tuple[str, object]] = []

    async def gif_creator(call: ToolCall) -> ToolResult:
        ran.append((call.context.workspace_id, call.arguments["action"]))
        if call.arguments["action"] == "start_recording":
            await busy_until.wait()
        return ToolResult.text("done")

    h = Harness(nursery, {"gif_creator": gif_creator})
    mine = h.workspace(TAB)
    first = h.work_id(h.start("gif_creator", {"tabId": TAB, "action": "start_recording"}, mine))
    await trio.sleep(0.1)
    queued = h.work_id(h.start("gif_creator", {"tabId": TAB, "action": "status"}, mine))
    await trio.sleep(0.1)
    assert h.workspaces.tab_released(TAB)
    theirs = h.workspace(TAB)
    busy_until.set()
    await trio.sleep(0.1)
    assert h.only_outcome(first).kind == h.only_outcome(queued).kind == "ok"
    busy_until = trio.Event()
    held = h.work_id(h.start("gif_creator", {"tabId": TAB, "action": "start_recording"}, theirs))
    await trio.sleep(0.1)
    export = {"tabId": TAB, "action": "export", "download": True}
    exported = h.work_id(h.start("gif_creator", export, mine))
    placed = h.work_id(h.start("gif_creator", {**export, "download": False, "ref": "ref_1"}, mine))
    await trio.sleep(0.1)
    assert h.only_outcome(exported).kind == "ok"  # while their call still holds the tab
    assert h.only_outcome(placed).kind == "denied"
    assert h.outcomes(held) == []
    busy_until.set()
    await trio.sleep(0.1)
    assert h.only_outcome(held).kind == "ok"
    assert ran == [
        (mine, "start_recording"), (mine, "status"), (theirs, "start_recording"), (mine, "export")
    ]  # fmt: skip
