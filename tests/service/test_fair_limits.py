"""Limits no few clients can exhaust for everyone, over real sockets: workspaces per connection,
connections per service, and the bytes unfinished frames hold."""

from __future__ import annotations

import struct

import pytest
import trio
import trio.testing
from ghostlight_mcp_connector.bridge_client import BridgeConnector, ConnectFailed

from ghostlight_trio.engine.contracts import ToolCall, ToolResult
from ghostlight_trio.service.app import assemble
from ghostlight_trio.service.streams import StreamLimits
from ghostlight_trio.transport.bridge import (
    CatalogProjection,
    CatalogRequest,
    Fatal,
    OpenWorkspace,
    Outcome,
    Start,
    Started,
    WorkspaceOpened,
)
from ghostlight_trio.transport.handshake import BridgeRefused, open_bridge
from ghostlight_trio.transport.stream import BridgeClosed, MessageStream
from ghostlight_trio.workspace import WorkspaceRegistry

from .serving import start_service


async def _context(call: ToolCall) -> ToolResult:
    return ToolResult.text("tabs: none")


def _minting_service(endpoints):
    return assemble(endpoints, WorkspaceRegistry(), {"tabs_context_mcp": _context}, None)


async def _mint(stream: MessageStream, sequence: int) -> Outcome:
    await stream.send(Start(sequence=sequence, operation="tabs_context_mcp", arguments={}))
    started = await stream.receive()
    assert isinstance(started, Started), started
    outcome = await stream.receive()
    assert isinstance(outcome, Outcome), outcome
    return outcome


async def test_four_clients_minting_without_reuse_leave_room_for_a_fifth(endpoints, nursery):
    """Four clients that mint a workspace for every call and never reuse one once held every
    workspace, and each new client was told "workspace limit reached". Each now keeps only its
    share, ending its own oldest, and a fifth client opens its workspace."""
    running = await start_service(nursery, endpoints, build=_minting_service)
    minters = [(await open_bridge(endpoints))[0] for _ in range(4)]
    for sequence in range(1, 41):
        for stream in minters:
            outcome = await _mint(stream, sequence)
            assert outcome.kind == "ok" and outcome.workspace_id, outcome
    fifth, _ = await open_bridge(endpoints)
    await fifth.send(OpenWorkspace(sequence=1, client_label="fifth"))
    opened = await fifth.receive()
    assert isinstance(opened, WorkspaceOpened), opened
    assert running.parts.workspaces.exists(opened.workspace_id)
    assert (await _mint(fifth, 2)).kind == "ok"
    for stream in (*minters, fifth):
        await stream.aclose()
    nursery.cancel_scope.cancel()


async def test_connections_past_the_bound_are_refused_in_words_the_connector_shows(
    endpoints, nursery
):
    running = await start_service(nursery, endpoints)
    limits = running.streams.limits
    edges = [(await open_bridge(endpoints))[0] for _ in range(limits.max_edge_streams)]
    with pytest.raises(BridgeRefused) as refused:
        await open_bridge(endpoints)
    assert f"already serves {limits.max_edge_streams} MCP client connections" in str(refused.value)
    assert "close agent sessions you no longer use" in str(refused.value)
    with pytest.raises(ConnectFailed) as failed:  # what the connector answers its calls with
        await BridgeConnector(endpoints).connect(launch=False)
    assert str(failed.value) == str(refused.value)

    # The user's own commands still get in while agents hold every edge place...
    controls = [
        (await open_bridge(endpoints, role="control"))[0]
        for _ in range(limits.max_streams - limits.max_edge_streams)
    ]
    await controls[0].send(CatalogRequest(sequence=1))
    assert isinstance(await controls[0].receive(), CatalogProjection)
    with pytest.raises(BridgeRefused, match=f"already serves {limits.max_streams} connections"):
        await open_bridge(endpoints, role="control")

    # ... and a place that frees up is taken by the next client.
    await edges.pop().aclose()
    with trio.fail_after(5):
        while True:
            try:
                again, _ = await open_bridge(endpoints)
                break
            except BridgeRefused:
                await trio.sleep(0.01)
    await again.send(CatalogRequest(sequence=1))
    assert isinstance(await again.receive(), CatalogProjection)
    assert len(running.streams) == limits.max_streams
    for stream in (*edges, *controls, again):
        await stream.aclose()
    nursery.cancel_scope.cancel()


async def test_connections_stuck_in_their_opening_are_bounded(endpoints, nursery, autojump_clock):
    running = await start_service(nursery, endpoints)
    limits: StreamLimits = running.streams.limits
    silent = [await trio.open_unix_socket(str(endpoints.edge_socket)) for _ in range(limits.max_opening)]
    await trio.testing.wait_all_tasks_blocked()
    assert running.streams.opening == limits.max_opening
    one_more = await trio.open_unix_socket(str(endpoints.edge_socket))
    with trio.fail_after(1):
        assert await one_more.receive_some(100) == b""  # closed unread
    await trio.sleep(6)  # the opening's own bound ends the silent ones
    assert running.streams.opening == 0
    stream, _ = await open_bridge(endpoints)
    await stream.aclose()
    for sock in (*silent, one_more):
        await sock.aclose()
    nursery.cancel_scope.cancel()


async def test_an_oversized_hello_is_refused_before_it_is_buffered(endpoints, nursery):
    running = await start_service(nursery, endpoints)
    raw = await trio.open_unix_socket(str(endpoints.edge_socket))
    await raw.send_all(struct.pack(">I", 1024 * 1024) + b"\xa1" * 1000)
    with trio.fail_after(5):
        assert await raw.receive_some(100) == b""
    assert running.streams.frame_budget.buffered == 0
    await raw.aclose()
    nursery.cancel_scope.cancel()


async def _send_partial(stream: MessageStream, declared: int, sent: int) -> None:
    """A frame header declaring ``declared`` bytes, then only ``sent`` of them."""
    try:
        await stream.stream.send_all(struct.pack(">I", declared) + b"\x00" * sent)
    except (trio.BrokenResourceError, trio.ClosedResourceError):
        pass  # the service closed this one


async def test_partial_large_frames_of_many_streams_stay_within_the_budget(endpoints, nursery):
    """Twenty streams each sending most of a 15 MiB frame took the service from 109 MB to 386 MB.
    What they hold now stays within the budget (each stream's allowance plus the shared limit);
    the streams past it are closed with a message naming the limit, and the service keeps
    serving."""
    running = await start_service(nursery, endpoints)
    budget = running.streams.frame_budget
    streams = [(await open_bridge(endpoints))[0] for _ in range(20)]
    declared, sent = 15 * 1024 * 1024, 6 * 1024 * 1024
    async with trio.open_nursery() as senders:
        for stream in streams:
            senders.start_soon(_send_partial, stream, declared, sent)
    with trio.fail_after(10):  # until the service has read what the kernel still holds
        settled = -1
        while settled != budget.buffered:
            settled = budget.buffered
            await trio.sleep(0.2)

    assert budget.peak <= budget.limit
    assert budget.buffered_peak <= budget.limit + len(streams) * budget.allowance
    assert budget.buffered_peak < len(streams) * sent  # not everything that was sent is held
    refusals = []
    for stream in streams:
        if stream.frame_ready or await _closed(stream):
            try:
                message = await stream.receive()
            except BridgeClosed:
                continue
            assert isinstance(message, Fatal)
            refusals.append(message.message)
    assert refusals, "no stream went past the budget"
    assert all("64 MiB of unfinished frames" in text for text in refusals)
    assert all("send smaller arguments" in text for text in refusals)

    fresh, _ = await open_bridge(endpoints)
    await fresh.send(CatalogRequest(sequence=1))
    assert isinstance(await fresh.receive(), CatalogProjection)
    for stream in (*streams, fresh):
        await stream.aclose()
    for _ in range(100):  # the service gives back what closed streams held
        if not (budget.buffered or budget.held):
            break
        await trio.sleep(0.05)
    assert (budget.buffered, budget.held) == (0, 0)
    nursery.cancel_scope.cancel()


async def _closed(stream: MessageStream) -> bool:
    """Whether the service has sent something (its Fatal) or closed the stream, without waiting."""
    with trio.move_on_after(0.05):
        await trio.lowlevel.wait_readable(stream.stream.socket)
        return True
    return False
