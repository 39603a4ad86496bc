"""``StatusReport.workspace_list``: who is who among the live workspaces, by fingerprint only."""

from __future__ import annotations

import attrs
import cbor2
import pytest
import trio
from hypothesis import given, settings
from hypothesis import strategies as st

from ghostlight_trio.governance.governor import Governor
from ghostlight_trio.service.status import workspace_entries
from ghostlight_trio.transport.bridge import (
    OpenWorkspace,
    StatusReport,
    StatusRequest,
    WorkspaceEntry,
    WorkspaceOpened,
)
from ghostlight_trio.transport.bridge_codec import (
    BridgeProtocolError,
    decode_message,
    encode_message,
)
from ghostlight_trio.transport.handshake import open_bridge
from ghostlight_trio.workspace import WorkspaceRegistry
from ghostlight_trio.workspace.tab_ids import compose_tab_id

from .serving import start_service


def pause(governor: Governor, workspace: str) -> None:
    """Open the attention circuit of ``workspace`` as repeated matching denials would."""
    for at in (1.0, 2.0, 3.0):
        governor.attention.record(workspace, ("example.test", "read"), at)
    assert governor.attention.is_open(workspace)


async def test_each_live_workspace_is_listed_by_fingerprint_label_and_number(autojump_clock):
    registry = WorkspaceRegistry()
    governor = Governor(fingerprint=registry.fingerprint)
    first, _ = registry.open(None, "claude-code")
    second, _ = registry.open(None, "claude-code", attached=False)
    third, _ = registry.open(None, "cursor")
    registry.adopt_tabs(second, [compose_tab_id(1, 5), compose_tab_id(1, 6)])
    pause(governor, third)
    await trio.sleep(20)
    with registry.pin(third):
        entries = workspace_entries(registry, governor)
    assert entries == [
        WorkspaceEntry(registry.fingerprint(first) or "", "claude-code", 1, 0, 0, 1, None, False),
        WorkspaceEntry(registry.fingerprint(second) or "", "claude-code", 2, 2, 0, 0, 100, False),
        WorkspaceEntry(registry.fingerprint(third) or "", "cursor", 1, 0, 1, 1, None, True),
    ]
    # The fingerprint is what `ghostlight resume --workspace` takes for the paused one.
    assert governor.resume_workspace(entries[2].fingerprint)[0]
    after = workspace_entries(registry, governor)
    assert after[:2] == entries[:2]
    assert after[2] == attrs.evolve(entries[2], active_calls=0, paused=False)
    # Without a governor nothing is known to be paused.
    pause(governor, third)
    assert not any(entry.paused for entry in workspace_entries(registry))


async def test_expiry_is_whole_seconds_rounded_up(autojump_clock):
    registry = WorkspaceRegistry()
    registry.open(None, "a", attached=False)
    await trio.sleep(0.5)
    [entry] = workspace_entries(registry)
    assert entry.expires_in == 120 and entry.clients == 0


async def test_status_report_lists_workspaces_and_marks_the_paused_one(endpoints, nursery):
    running = await start_service(nursery, endpoints)
    edges = []
    handles = []
    for label in ("agent-a", "agent-a", "agent-b"):
        edge, _ = await open_bridge(endpoints)
        await edge.send(OpenWorkspace(sequence=1, client_label=label))
        opened = await edge.receive()
        assert isinstance(opened, WorkspaceOpened)
        edges.append(edge)
        handles.append(opened.workspace_id)
    registry = running.parts.workspaces
    pause(running.parts.governance.governor, handles[1])

    control, _ = await open_bridge(endpoints, role="control")
    await control.send(StatusRequest(sequence=7))
    report = await control.receive()
    assert isinstance(report, StatusReport) and report.workspaces == 3
    shown = [
        (e.fingerprint, e.label, e.ordinal, e.clients, e.paused) for e in report.workspace_list
    ]
    assert shown == [
        (registry.fingerprint(handles[0]), "agent-a", 1, 1, False),
        (registry.fingerprint(handles[1]), "agent-a", 2, 1, True),
        (registry.fingerprint(handles[2]), "agent-b", 1, 1, False),
    ]
    # No raw workspace handle is in the report, in any form.
    body = encode_message(report)
    assert not any(handle.encode() in body for handle in handles)
    for edge in edges:
        await edge.aclose()
    await control.aclose()
    nursery.cancel_scope.cancel()


# --- the codec --------------------------------------------------------------------------------

entries = st.builds(
    WorkspaceEntry,
    fingerprint=st.text(max_size=19),
    label=st.text(max_size=12),
    ordinal=st.integers(0, 2**31),
    tabs=st.integers(0, 2**31),
    active_calls=st.integers(0, 2**31),
    clients=st.integers(0, 2**31),
    expires_in=st.none() | st.integers(0, 2**31),
    paused=st.booleans(),
)
reports = st.builds(
    StatusReport,
    sequence=st.integers(0, 2**31),
    service_version=st.text(max_size=8),
    pid=st.integers(0, 2**31),
    edges=st.integers(0, 2**31),
    browsers=st.just([]),
    workspaces=st.integers(0, 2**31),
    active_work=st.integers(0, 2**31),
    held=st.booleans(),
    panicked=st.booleans(),
    quarantined=st.lists(st.text(max_size=8), max_size=2),
    workspace_list=st.lists(entries, max_size=3),
)


@settings(max_examples=200)
@given(reports)
def test_status_report_with_workspaces_round_trips(report: StatusReport) -> None:
    assert decode_message(encode_message(report)) == report


def test_a_report_from_an_older_service_decodes_with_no_workspace_list() -> None:
    older = {
        "t": "StatusReport", "sequence": 1, "service_version": "0.1.0", "pid": 2, "edges": 0,
        "browsers": [], "workspaces": 1, "active_work": 0, "held": False, "panicked": False,
        "quarantined": [],
    }  # fmt: skip
    decoded = decode_message(cbor2.dumps(older))
    assert isinstance(decoded, StatusReport) and decoded.workspace_list == []


def test_an_ill_typed_workspace_entry_is_a_protocol_error() -> None:
    good = encode_message(
        StatusReport(1, "v", 2, 0, [], 1, 0, workspace_list=[WorkspaceEntry("ws-1", "a")])
    )
    raw = cbor2.loads(good)
    for bad in ({"paused": 1}, {"tabs": True}, {"expires_in": 1.5}, {"extra": 1}):
        broken = dict(raw, workspace_list=[dict(raw["workspace_list"][0], **bad)])
        with pytest.raises(BridgeProtocolError):
            decode_message(cbor2.dumps(broken))
