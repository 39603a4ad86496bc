"""The 2025-11-25 workspace handle's state machine: its legal moves, and a clear refusal of
any other (a fault of the handler), while stale answers from the service change nothing."""

from __future__ import annotations

import pytest
from ghostlight_mcp_connector.implicit_workspace import ImplicitWorkspace, WorkspaceStateError

from ghostlight_trio.transport.bridge import OpenWorkspace, Rejected, WorkspaceOpened


def _opened(sequence: int, handle: str = "ws-1", reattached: bool = False) -> WorkspaceOpened:
    return WorkspaceOpened(sequence=sequence, workspace_id=handle, reattached=reattached)


def _refused(sequence: int) -> Rejected:
    return Rejected(sequence=sequence, code="busy", message="no room")


def test_open_then_opened_gives_the_handle() -> None:
    workspace = ImplicitWorkspace()
    assert workspace.state == "none" and workspace.handle is None
    message = workspace.open(7, "claude")
    assert message == OpenWorkspace(sequence=7, reattach=None, client_label="claude")
    assert workspace.state == "opening"
    assert workspace.answers(_opened(7)) and not workspace.answers(_opened(8))
    workspace.opened(_opened(7))
    assert (workspace.state, workspace.handle) == ("open", "ws-1")
    assert not workspace.take_replacement()  # a first workspace replaces nothing


def test_a_refusal_returns_to_none_and_a_new_open_may_follow() -> None:
    workspace = ImplicitWorkspace()
    workspace.open(1, "")
    workspace.refused(_refused(1))
    assert workspace.state == "none" and workspace.handle is None
    assert workspace.open(2, "").sequence == 2


def test_a_failed_connection_ends_an_opening_only() -> None:
    workspace = ImplicitWorkspace()
    workspace.connection_failed()
    assert workspace.state == "none"
    workspace.open(1, "")
    workspace.connection_failed()
    assert workspace.state == "none"
    assert not workspace.answers(_opened(1))  # the attempt is over: its answer is stale
    workspace.open(2, "")
    workspace.opened(_opened(2))
    workspace.connection_failed()
    assert workspace.state == "open"


def test_a_lost_connection_keeps_the_handle_to_reattach() -> None:
    workspace = ImplicitWorkspace()
    workspace.open(1, "agent")
    workspace.opened(_opened(1, "ws-1"))
    workspace.connection_lost()
    assert (workspace.state, workspace.handle) == ("none", "ws-1")
    assert workspace.open(2, "agent").reattach == "ws-1"
    workspace.opened(_opened(2, "ws-1", reattached=True))
    assert not workspace.take_replacement()


def test_a_fresh_workspace_after_a_loss_is_reported_once() -> None:
    workspace = ImplicitWorkspace()
    workspace.open(1, "")
    workspace.opened(_opened(1, "ws-1"))
    workspace.connection_lost()
    workspace.open(2, "")
    workspace.opened(_opened(2, "ws-2", reattached=False))
    assert workspace.handle == "ws-2"
    assert workspace.take_replacement()
    assert not workspace.take_replacement()


@pytest.mark.parametrize("state", ["opening", "open"])
def test_opening_twice_is_refused_with_the_state_it_is_in(state: str) -> None:
    workspace = ImplicitWorkspace()
    workspace.open(1, "")
    if state == "open":
        workspace.opened(_opened(1))
    with pytest.raises(WorkspaceStateError, match=f"already {state}"):
        workspace.open(2, "")
    assert workspace.state == state  # the refused event changed nothing


@pytest.mark.parametrize("answer", [_opened(3), _refused(3)])
def test_an_answer_to_no_opening_under_way_is_refused_by_the_machine(
    answer: WorkspaceOpened | Rejected,
) -> None:
    workspace = ImplicitWorkspace()
    with pytest.raises(WorkspaceStateError, match="answers no opening under way"):
        if isinstance(answer, WorkspaceOpened):
            workspace.opened(answer)
        else:
            workspace.refused(answer)
    workspace.open(4, "")
    with pytest.raises(WorkspaceStateError, match="sequence 3"):
        if isinstance(answer, WorkspaceOpened):
            workspace.opened(answer)
        else:
            workspace.refused(answer)
    assert workspace.state == "opening" and workspace.answers(_opened(4))
