"""Workspace lifetime (idle grace, reattach, pinning, bound) and tab ownership."""

from __future__ import annotations

import pytest
import trio

from ghostlight_trio.workspace import (
    UnknownWorkspace,
    WorkspaceLimitReached,
    WorkspaceLimits,
    WorkspaceRegistry,
    compose_tab_id,
    split_tab_id,
)


async def test_detached_workspace_expires_after_idle_grace(autojump_clock):
    registry = WorkspaceRegistry()
    ws, reattached = registry.open(None, "edge")
    assert not reattached
    registry.detach(ws)
    await trio.sleep(119)
    assert registry.exists(ws)
    await trio.sleep(2)
    assert not registry.exists(ws)
    again, reattached = registry.open(ws, "edge")
    assert not reattached and again != ws


async def test_reattach_within_grace_keeps_the_workspace(autojump_clock):
    registry = WorkspaceRegistry()
    ws, _ = registry.open(None, "edge")
    assert registry.adopt_tabs(ws, [compose_tab_id(1, 5)])
    registry.detach(ws)
    await trio.sleep(100)
    same, reattached = registry.open(ws, "edge")
    assert (same, reattached) == (ws, True)
    await trio.sleep(1000)  # attached again: no expiry
    assert registry.exists(ws)
    assert registry.owned_tabs(ws) == {compose_tab_id(1, 5)}


async def test_pinned_workspace_never_expires(autojump_clock):
    registry = WorkspaceRegistry()
    ws, _ = registry.open(None, "edge", attached=False)
    with registry.pin(ws):
        await trio.sleep(1000)
        assert registry.exists(ws)
    await trio.sleep(119)
    assert registry.exists(ws)
    await trio.sleep(2)
    assert not registry.exists(ws)


async def test_release_retires_now_or_when_the_last_pin_goes(autojump_clock):
    registry = WorkspaceRegistry()
    ws, _ = registry.open(None, "edge")
    registry.release(ws)
    assert not registry.exists(ws)

    ws, _ = registry.open(None, "edge")
    registry.adopt_tabs(ws, [11])
    with registry.pin(ws):
        registry.release(ws)
        assert registry.exists(ws)
    assert not registry.exists(ws)
    assert registry.adopt_tabs(registry.open(None, "x")[0], [11])  # the tab was freed


async def test_unknown_handles_resolve_to_one_identical_error():
    registry = WorkspaceRegistry()
    ws, _ = registry.open(None, "edge")
    registry.release(ws)
    messages = set()
    for handle in (None, "nope", ws, ws.upper()):
        with pytest.raises(UnknownWorkspace) as caught:
            registry.resolve(handle)
        messages.add(str(caught.value))
    assert len(messages) == 1


async def test_bounded_count():
    registry = WorkspaceRegistry(WorkspaceLimits(max_workspaces=2))
    registry.open(None, "a")
    registry.open(None, "b")
    with pytest.raises(WorkspaceLimitReached, match="workspace limit reached"):
        registry.open(None, "c")


async def test_adoption_is_atomic_and_ownership_verifies_exactly():
    registry = WorkspaceRegistry()
    a, _ = registry.open(None, "a")
    b, _ = registry.open(None, "b")
    assert registry.adopt_tabs(a, [1, 2])
    assert not registry.adopt_tabs(b, [3, 2])  # 2 is a's: nothing adopted
    assert registry.owned_tabs(b) == frozenset()
    assert registry.adopt_tabs(a, [2, 3])  # re-adopting your own is fine
    assert registry.verify_tab(a, 3) and not registry.verify_tab(b, 3)
    assert not registry.verify_tab(b, 999)
    assert not registry.verify_tab("unknown", 1)
    registry.tab_closed(1)
    assert not registry.verify_tab(a, 1)
    assert registry.adopt_tabs(b, [1])


async def test_purge_slot_drops_only_that_browser():
    registry = WorkspaceRegistry()
    ws, _ = registry.open(None, "a")
    one, two = compose_tab_id(1, 5), compose_tab_id(2, 5)
    registry.adopt_tabs(ws, [one, two])
    registry.purge_slot(1)
    assert registry.owned_tabs(ws) == {two}
    assert registry.exists(ws)
    assert split_tab_id(two) == (2, 5)


async def test_fingerprint_is_keyed_and_never_the_handle():
    registry = WorkspaceRegistry()
    other = WorkspaceRegistry()
    ws, _ = registry.open(None, "a")
    fp = registry.fingerprint(ws)
    assert fp is not None and ws not in fp and fp == registry.fingerprint(ws)
    assert other.fingerprint(ws) != fp
    assert registry.label(ws) == "a"


async def test_summaries_show_what_the_user_may_see_of_each_workspace(autojump_clock):
    registry = WorkspaceRegistry()
    first, _ = registry.open(None, "claude-code")
    second, _ = registry.open(None, "claude-code", attached=False)
    registry.adopt_tabs(second, [compose_tab_id(1, 5), compose_tab_id(1, 6)])
    with registry.pin(second):
        held = registry.summaries()
    await trio.sleep(20)
    idle = registry.summaries()
    assert [(s.label, s.ordinal, s.tabs, s.held_by_streams) for s in idle] == [
        ("claude-code", 1, 0, 1), ("claude-code", 2, 2, 0)
    ]
    assert (held[1].active_calls, held[1].expires_in) == (1, None)
    assert (idle[0].expires_in, idle[1].expires_in) == (None, 100)
    assert idle[0].fingerprint == registry.fingerprint(first)
    assert all(first not in repr(s) and second not in repr(s) for s in idle)
