"""The bridge server over a real owner-only Unix socket."""

from __future__ import annotations

import json
import os
import stat

import pytest
import trio

from ghostlight_trio.engine.contracts import ToolCall, ToolResult
from ghostlight_trio.scheduler import TabSurface
from ghostlight_trio.service import bridge_server
from ghostlight_trio.service.app import assemble, build_service_parts
from ghostlight_trio.transport.bridge import (
    CatalogChanged,
    CatalogProjection,
    CatalogRequest,
    OpenWorkspace,
    Outcome,
    Rejected,
    ReleaseWorkspace,
    Start,
    Started,
    StatusReport,
    StatusRequest,
    TextBlock,
    WorkspaceOpened,
)
from ghostlight_trio.transport.handshake import open_bridge
from ghostlight_trio.transport.stream import BridgeClosed
from ghostlight_trio.workspace import WorkspaceRegistry

from .serving import start_service

PLAN = {"domains": ["example.test"], "approach": ["read the page"]}


async def test_hello_catalog_start_outcome(endpoints, nursery):
    running = await start_service(nursery, endpoints, build=build_service_parts)
    mode = os.stat(endpoints.edge_socket).st_mode
    assert stat.S_ISSOCK(mode) and stat.S_IMODE(mode) == 0o600
    assert stat.S_IMODE(os.stat(endpoints.runtime_dir).st_mode) == 0o700

    stream, hello = await open_bridge(endpoints)
    assert hello.instance == endpoints.instance
    await stream.send(CatalogRequest(sequence=1))
    projection = await stream.receive()
    assert isinstance(projection, CatalogProjection) and projection.sequence == 1
    names = [tool.name for tool in projection.tools]
    assert "update_plan" in names
    assert projection.generation == running.parts.catalog.generation

    await stream.send(Start(sequence=2, operation="update_plan", arguments=PLAN))
    started = await stream.receive()
    assert isinstance(started, Started) and started.sequence == 2
    outcome = await stream.receive()
    assert isinstance(outcome, Outcome) and outcome.work_id == started.work_id
    assert outcome.kind == "ok"
    assert isinstance(outcome.content[0], TextBlock)
    assert "Plan recorded" in outcome.content[0].text

    await stream.send(Start(sequence=3, operation="navigate", arguments={"url": "x", "tabId": 1}))
    rejected = await stream.receive()
    assert isinstance(rejected, Rejected) and rejected.code == "workspace_required"
    await stream.aclose()

    records = [json.loads(line) for line in endpoints.audit_file.read_text().splitlines()]
    assert [(r["tool"], r["outcome"]) for r in records] == [("update_plan", "ok")]
    nursery.cancel_scope.cancel()


async def test_workspace_open_release_and_reattach_after_loss(endpoints, nursery, autojump_clock):
    running = await start_service(nursery, endpoints)
    registry = running.parts.workspaces
    stream, _ = await open_bridge(endpoints)
    await stream.send(OpenWorkspace(sequence=1, client_label="client"))
    opened = await stream.receive()
    assert isinstance(opened, WorkspaceOpened) and not opened.reattached
    workspace = opened.workspace_id
    await stream.aclose()  # unclean loss: the idle grace starts

    await trio.sleep(60)
    stream, _ = await open_bridge(endpoints)
    await stream.send(OpenWorkspace(sequence=1, reattach=workspace, client_label="client"))
    again = await stream.receive()
    assert isinstance(again, WorkspaceOpened)
    assert (again.workspace_id, again.reattached) == (workspace, True)
    await stream.send(ReleaseWorkspace(workspace_id=workspace))
    await stream.send(CatalogRequest(sequence=2))
    await stream.receive()  # the release was handled before this answer
    assert not registry.exists(workspace)

    await stream.send(OpenWorkspace(sequence=3, reattach=workspace))
    fresh = await stream.receive()
    assert isinstance(fresh, WorkspaceOpened) and not fresh.reattached
    await stream.aclose()
    await trio.sleep(121)
    assert not registry.exists(fresh.workspace_id)  # expired after the grace
    nursery.cancel_scope.cancel()


async def test_catalog_changes_are_broadcast(endpoints, nursery, autojump_clock):
    running = await start_service(nursery, endpoints)
    streams = [(await open_bridge(endpoints))[0] for _ in range(2)]
    await trio.sleep(0.5)
    running.parts.catalog.set_available([])
    for stream in streams:
        changed = await stream.receive()
        assert changed == CatalogChanged(generation=running.parts.catalog.generation)
        await stream.aclose()
    nursery.cancel_scope.cancel()


async def test_other_users_are_closed_before_any_frame(endpoints, nursery, monkeypatch):
    monkeypatch.setattr(bridge_server, "is_same_user", lambda sock: False)
    await start_service(nursery, endpoints)
    raw = await trio.open_unix_socket(str(endpoints.edge_socket))
    with trio.fail_after(5):
        assert await raw.receive_some(100) == b""
    await raw.aclose()
    nursery.cancel_scope.cancel()


async def test_protocol_violation_closes_only_that_stream(endpoints, nursery):
    await start_service(nursery, endpoints)
    bad, _ = await open_bridge(endpoints)
    await bad.send_body(b"\xff\xff")
    fatal = await bad.receive()
    assert type(fatal).__name__ == "Fatal"
    await bad.aclose()
    good, _ = await open_bridge(endpoints)
    await good.send(CatalogRequest(sequence=9))
    assert isinstance(await good.receive(), CatalogProjection)
    await good.aclose()
    nursery.cancel_scope.cancel()


async def test_a_fault_in_one_stream_closes_that_stream_not_the_service(
    endpoints, nursery, monkeypatch
):
    """Whatever escapes one stream's handling ends that stream only: the other clients keep
    their connections and their workspaces."""
    await start_service(nursery, endpoints)
    other, _ = await open_bridge(endpoints)
    await other.send(OpenWorkspace(sequence=1))
    opened = await other.receive()
    assert isinstance(opened, WorkspaceOpened)

    def fault(*args, **kwargs):
        raise RuntimeError("a fault in this stream's handling")

    monkeypatch.setattr(bridge_server, "status_report", fault)
    faulty, _ = await open_bridge(endpoints, role="control")
    await faulty.send(StatusRequest(sequence=1))
    with trio.fail_after(5), pytest.raises(BridgeClosed):
        await faulty.receive()

    await other.send(
        Start(sequence=2, operation="update_plan", arguments=PLAN, workspace_id=opened.workspace_id)
    )
    assert isinstance(await other.receive(), Started)
    outcome = await other.receive()
    assert isinstance(outcome, Outcome) and outcome.kind == "ok"
    later, _ = await open_bridge(endpoints)
    await later.send(CatalogRequest(sequence=3))
    assert isinstance(await later.receive(), CatalogProjection)
    for stream in (faulty, other, later):
        await stream.aclose()
    nursery.cancel_scope.cancel()


async def test_slow_edge_does_not_stall_other_streams(endpoints, nursery, autojump_clock):
    async def quick(call: ToolCall) -> ToolResult:
        return ToolResult.text("x" * 1000)

    def build(e):
        return assemble(e, WorkspaceRegistry(), {"update_plan": quick}, None)

    await start_service(nursery, endpoints, build=build)
    silent, _ = await open_bridge(endpoints)  # never reads its answers
    for n in range(200):
        await silent.send(Start(sequence=n, operation="update_plan", arguments=PLAN))
    other, _ = await open_bridge(endpoints)
    await other.send(Start(sequence=1, operation="update_plan", arguments=PLAN))
    assert isinstance(await other.receive(), Started)
    assert isinstance(await other.receive(), Outcome)
    await silent.aclose()
    await other.aclose()
    nursery.cancel_scope.cancel()


async def test_status_report(endpoints, nursery):
    running = await start_service(nursery, endpoints, build=build_service_parts)
    edge, _ = await open_bridge(endpoints)
    await edge.send(OpenWorkspace(sequence=1))
    await edge.receive()
    control, _ = await open_bridge(endpoints, role="control")
    await control.send(StatusRequest(sequence=5))
    report = await control.receive()
    assert isinstance(report, StatusReport) and report.sequence == 5
    assert (report.edges, report.workspaces, report.active_work) == (1, 1, 0)
    assert report.pid == os.getpid() and report.browsers == []
    assert report.quarantined == []
    # A tab left uncertain shows, named as the agent knows it (slot 1, native tab 7).
    running.parts.engine.scheduler.quarantine(TabSurface(1, 7), "browser:1:r9")
    await control.send(StatusRequest(sequence=6))
    assert (await control.receive()).quarantined == ["tab 4294967303"]
    await edge.aclose()
    await control.aclose()
    nursery.cancel_scope.cancel()


async def test_arguments_of_any_cbor_type_get_a_corrective_error_and_the_stream_lives(
    endpoints, nursery
):
    """Regression: byte strings where text is expected once crashed the stream's nursery."""
    await start_service(nursery, endpoints)
    stream, _ = await open_bridge(endpoints)
    bad = {"domains": [b"x"], "approach": [b"y"]}
    await stream.send(Start(sequence=1, operation="update_plan", arguments=bad))
    started = await stream.receive()
    outcome = await stream.receive()
    assert isinstance(started, Started) and isinstance(outcome, Outcome)
    assert outcome.kind == "tool_error"
    assert "Invalid arguments for update_plan" in outcome.content[0].text
    await stream.send(Start(sequence=2, operation="update_plan", arguments=PLAN))
    assert isinstance(await stream.receive(), Started)
    followup = await stream.receive()
    assert isinstance(followup, Outcome) and followup.kind == "ok"
    await stream.aclose()
    nursery.cancel_scope.cancel()


async def test_a_stream_holds_its_own_workspace_once_however_many_calls_use_it(endpoints, nursery):
    """A 2025-11-25 edge opens its implicit workspace and then names it on every call: the
    workspace is held by one stream, and `ghostlight status` says one client, not two."""
    running = await start_service(nursery, endpoints)
    registry = running.parts.workspaces
    stream, _ = await open_bridge(endpoints)
    await stream.send(OpenWorkspace(sequence=1, client_label="client"))
    opened = await stream.receive()
    assert isinstance(opened, WorkspaceOpened)
    for sequence in (2, 3):
        plan = {"domains": [], "approach": []}
        await stream.send(
            Start(sequence=sequence, operation="update_plan", arguments=plan, workspace_id=opened.workspace_id)
        )
        assert isinstance(await stream.receive(), Started)
        assert (await stream.receive()).kind == "ok"
    [summary] = registry.summaries()
    assert summary.held_by_streams == 1
    await stream.aclose()
    await trio.sleep(0.5)
    assert registry.summaries()[0].held_by_streams == 0  # its grace runs now
    nursery.cancel_scope.cancel()


async def _denials_until_paused(stream, attention, workspace: str, first_sequence: int) -> int:
    """Calls naming tab ids outside ``workspace`` (each a new one), all denied, until the
    attention circuit pauses the workspace: how many it took."""
    for count in range(1, 21):
        sequence = first_sequence + count
        arguments = {"tabId": 1000 + count}
        await stream.send(
            Start(sequence=sequence, operation="get_page_text", arguments=arguments, workspace_id=workspace)
        )
        assert isinstance(await stream.receive(), Started)
        outcome = await stream.receive()
        assert isinstance(outcome, Outcome) and outcome.kind == "denied", outcome
        if attention.is_open(workspace):
            return count
    raise AssertionError("never paused")


async def test_a_workspace_replacing_one_lost_in_a_restart_is_excused_its_old_tab_ids(
    endpoints, nursery
):
    """After a service restart an edge asks for its workspace back and gets a new one: the
    agent's first tries with its tab ids from before are denied as ever, but do not pause
    it. A fresh workspace, and one replacing another past that grace, pause as before."""
    running = await start_service(nursery, endpoints, build=build_service_parts)
    attention = running.parts.governance.governor.attention
    paused_after = {}
    for reattach in (None, "a-handle-from-before-the-restart"):
        stream, _ = await open_bridge(endpoints)
        await stream.send(OpenWorkspace(sequence=1, reattach=reattach, client_label="client"))
        opened = await stream.receive()
        assert isinstance(opened, WorkspaceOpened) and not opened.reattached
        paused_after[reattach] = await _denials_until_paused(stream, attention, opened.workspace_id, 2)
        await stream.aclose()
    assert paused_after == {None: 3, "a-handle-from-before-the-restart": 8 + 3}
    nursery.cancel_scope.cancel()
