"""Each connection's share of the workspaces: one connection making room ends its own oldest
idle workspace, never another's, and the shares together always fit the service's bound."""

from __future__ import annotations

import copy

import trio
import trio.testing

from ghostlight_trio.engine import texts
from ghostlight_trio.engine.contracts import ToolCall, ToolResult
from ghostlight_trio.engine.limits import EngineLimits
from ghostlight_trio.service.streams import StreamLimits
from ghostlight_trio.transport.bridge import Rejected, Started
from ghostlight_trio.workspace import WorkspaceLimitReached, WorkspaceLimits

from .harness import Harness, RecordingSink


async def _context(call: ToolCall) -> ToolResult:
    return ToolResult.text("tabs: none")


class Gate:
    """A handler that holds its call until released."""

    def __init__(self) -> None:
        self.release = trio.Event()

    async def __call__(self, call: ToolCall) -> ToolResult:
        await self.release.wait()
        return ToolResult.text("done")


PLAN = {"domains": [], "approach": []}


def connection(h: Harness) -> Harness:
    """One more connection on the harness's engine: its own session and its own answers."""
    other = copy.copy(h)
    other.sink = RecordingSink()
    other.session = h.engine.open_session(h.nursery, other.sink)
    return other


async def mint(c: Harness) -> str:
    """A context-creating call that mints a workspace; its handle."""
    work = c.work_id(c.start("tabs_context_mcp", {}))
    await trio.testing.wait_all_tasks_blocked()
    outcome = c.only_outcome(work)
    assert outcome.kind == "ok" and outcome.workspace_id is not None
    return outcome.workspace_id


def test_the_shares_of_every_connection_fit_the_service_bound() -> None:
    """However the admitted connections use their shares, the service's bound holds them all,
    so one that is full always has a workspace nothing holds to make room with."""
    assert (
        StreamLimits().max_streams * EngineLimits().max_workspaces_per_stream
        <= WorkspaceLimits().max_workspaces
    )
    assert EngineLimits().max_held_workspaces_per_stream <= EngineLimits().max_workspaces_per_stream


async def test_minting_connections_cannot_lock_out_one_more(nursery, autojump_clock):
    """Every connection the service admits minting a workspace per call (a model that never
    reuses its workspaceId) leaves room: the last one still opens its workspace and mints more,
    and no minting connection was ever refused."""
    h = Harness(nursery, {"tabs_context_mcp": _context, "update_plan": _context})
    share = EngineLimits().max_workspaces_per_stream
    others = [connection(h) for _ in range(StreamLimits().max_streams - 1)]
    minted: dict[int, list[str]] = {index: [] for index in range(len(others))}
    for _ in range(share + 3):
        for index, client in enumerate(others):
            minted[index].append(await mint(client))
    for workspaces in minted.values():
        assert sum(h.workspaces.exists(ws) for ws in workspaces) == share
    last = connection(h)
    workspace, reattached = last.session.open_workspace(None, "last")
    assert not reattached and h.workspaces.exists(workspace)
    for _ in range(share - 1):
        await mint(last)
    assert len(h.workspaces) <= WorkspaceLimits().max_workspaces


async def test_four_minting_connections_leave_room_for_a_fifth(nursery, autojump_clock):
    """The report's case: four clients minting without reusing held every workspace, and any
    new client got "workspace limit reached"."""
    h = Harness(nursery, {"tabs_context_mcp": _context})
    minters = [connection(h) for _ in range(4)]
    for _ in range(40):
        for client in minters:
            await mint(client)
    fifth = connection(h)
    workspace, _ = fifth.session.open_workspace(None, "fifth")
    assert h.workspaces.exists(workspace)
    assert await mint(fifth)


async def test_making_room_ends_the_connection_s_own_oldest_idle_workspace(nursery, autojump_clock):
    """Over its share, a connection ends its own least recently used workspace that has no call
    in flight: the browser is told it ended (its tab group is marked so); a workspace with a call
    in flight, and every other connection's, are left alone."""
    gate = Gate()
    h = Harness(
        nursery,
        {"tabs_context_mcp": _context, "update_plan": gate},
        engine_limits=EngineLimits(max_workspaces_per_stream=3, max_held_workspaces_per_stream=3),
    )
    ended: list[str] = []
    h.workspaces.retire_listeners.append(ended.append)
    other = connection(h)
    theirs = await mint(other)
    other.session.abandon()  # their stream went: theirs waits out its grace, held by nothing

    mine = connection(h)
    busy, idle, newest = [await mint(mine) for _ in range(3)]
    running = mine.work_id(mine.start("update_plan", PLAN, busy))  # in flight in the oldest
    await trio.testing.wait_all_tasks_blocked()
    fourth = await mint(mine)
    assert ended == [idle]
    assert not h.workspaces.exists(idle)
    assert all(h.workspaces.exists(ws) for ws in (busy, newest, fourth, theirs))
    gate.release.set()
    await trio.testing.wait_all_tasks_blocked()
    assert mine.only_outcome(running).kind == "ok"


async def test_a_connection_whose_workspaces_all_have_calls_in_flight_is_told_it_is_busy(
    nursery, autojump_clock
):
    gate = Gate()
    h = Harness(
        nursery,
        {"tabs_context_mcp": _context, "update_plan": gate},
        engine_limits=EngineLimits(max_workspaces_per_stream=2, max_held_workspaces_per_stream=2),
    )
    mine = connection(h)
    first, second = await mint(mine), await mint(mine)
    for workspace in (first, second):
        assert isinstance(mine.start("update_plan", PLAN, workspace), Started)
    await trio.testing.wait_all_tasks_blocked()
    refused = mine.start("tabs_context_mcp", {})
    assert isinstance(refused, Rejected) and refused.code == "busy"
    assert refused.message == texts.WORKSPACE_SHARE_BUSY.format(limit=2)
    try:
        mine.session.open_workspace(None, "mine")
    except WorkspaceLimitReached as exc:
        assert str(exc) == refused.message
    else:
        raise AssertionError("opened a workspace past the share")
    assert await mint(connection(h))  # another connection is not held up by it
    gate.release.set()
    await trio.testing.wait_all_tasks_blocked()
    assert await mint(mine)


async def test_a_connection_minting_many_does_not_end_a_lost_client_s_workspace(
    nursery, autojump_clock
):
    """A client whose connection dropped gets its workspace back if it returns within the idle
    grace, however many workspaces another connection mints meanwhile."""
    h = Harness(nursery, {"tabs_context_mcp": _context})
    lost = connection(h)
    theirs, _ = lost.session.open_workspace(None, "lost")
    lost.session.abandon()
    minter = connection(h)
    for _ in range(WorkspaceLimits().max_workspaces + 10):
        await mint(minter)
    again, reattached = connection(h).session.open_workspace(theirs, "lost")
    assert (again, reattached) == (theirs, True)


async def test_opening_workspaces_over_and_over_on_one_connection_stays_in_its_share(nursery):
    """``OpenWorkspace`` sent again and again (a raw bridge client) mints within the share."""
    h = Harness(nursery, {"tabs_context_mcp": _context})
    client = connection(h)
    opened = [client.session.open_workspace(None, "raw")[0] for _ in range(50)]
    share = EngineLimits().max_workspaces_per_stream
    assert len(h.workspaces) == share
    assert all(h.workspaces.exists(ws) for ws in opened[-share:])
