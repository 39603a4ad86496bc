"""A workspace that goes (released, or expired after its idle grace) takes its attention circuit
with it: the assembled service forgets its pause instead of keeping it in memory forever."""

from __future__ import annotations

from ghostlight_trio.governance.sources import PolicyFiles
from ghostlight_trio.service.app import assemble
from ghostlight_trio.transport.endpoints import Endpoints
from ghostlight_trio.workspace import WorkspaceLimits, WorkspaceRegistry

SIGNATURE = ("evil.test", frozenset({"read"}), "policy")


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_the_registry_reports_each_workspace_once_as_it_goes() -> None:
    clock = Clock()
    registry = WorkspaceRegistry(WorkspaceLimits(idle_grace=10.0), clock=clock)
    gone: list[str] = []
    registry.retire_listeners.append(gone.append)
    released, _ = registry.open(None, "a")
    pinned, _ = registry.open(None, "b")
    lost, _ = registry.open(None, "c")

    registry.release(released)
    assert gone == [released]
    with registry.pin(pinned):
        registry.release(pinned)
        assert gone == [released]  # active work keeps it until that work settles
    assert gone == [released, pinned]

    registry.detach(lost)
    assert gone == [released, pinned]  # the idle grace has only started
    clock.now = 11.0
    assert registry.reap() == 1
    assert gone == [released, pinned, lost]
    registry.release(released)  # already gone: reported once
    assert gone == [released, pinned, lost]


def test_a_failing_listener_does_not_stop_the_workspace_going() -> None:
    registry = WorkspaceRegistry(clock=Clock())

    def broken(workspace: str) -> None:
        raise RuntimeError("boom")

    heard: list[str] = []
    registry.retire_listeners.extend([broken, heard.append])
    ws, _ = registry.open(None, "a")
    registry.release(ws)
    assert heard == [ws] and not registry.exists(ws)


def test_the_service_forgets_the_pause_of_a_released_or_expired_workspace(
    endpoints: Endpoints,
) -> None:
    clock = Clock()
    registry = WorkspaceRegistry(WorkspaceLimits(idle_grace=10.0), clock=clock)
    parts = assemble(endpoints, registry, {}, None, policy=PolicyFiles(org=None, user=None, settings=None))
    assert parts.governance is not None
    attention = parts.governance.governor.attention
    released, _ = registry.open(None, "a")
    expired, _ = registry.open(None, "b")
    kept, _ = registry.open(None, "c")
    for ws in (released, expired, kept):
        for _ in range(3):
            attention.record(ws, SIGNATURE, 0.0)
        assert attention.is_open(ws)

    registry.release(released)
    registry.detach(expired)
    clock.now = 11.0
    assert not registry.exists(expired)  # expiry is noticed whenever the registry is consulted
    assert set(attention.paused()) == {kept}
    assert not attention.is_open(released) and not attention.is_open(expired)
