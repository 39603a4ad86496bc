"""The one workspace a 2025-11-25 process works in, as a small explicit state machine.

2025-11-25 has no workspace argument: the connector opens a workspace after ``initialize``,
supplies it on every call, reattaches it after a bridge loss and releases it on clean
shutdown. Its handle moves through three states (h11 style: each event is a method, and an
event the state does not allow raises ``WorkspaceStateError`` instead of being guessed at)::

    none --open--> opening --opened--> open
                   opening --refused / connection failed--> none
    any  --connection lost--> none   (the handle is kept, to reattach)

Answers from the service carry the sequence of the ``OpenWorkspace`` they answer; one for
another sequence (a past attempt) is not for this state and changes nothing.
"""

from __future__ import annotations

import logging
from typing import Literal

from ghostlight_trio.transport.bridge import OpenWorkspace, Rejected, WorkspaceOpened

State = Literal["none", "opening", "open"]

_log = logging.getLogger(__name__)


class WorkspaceStateError(Exception):
    """An event the workspace's state does not allow: a fault of the handler, never of the
    client or the service (their stale answers are ignored, not refused)."""


class ImplicitWorkspace:
    """The handle, its state, and the sequence of the ``OpenWorkspace`` under way."""

    def __init__(self) -> None:
        self.state: State = "none"
        self.handle: str | None = None
        """The workspace id, once the service gave one; kept across a bridge loss."""
        self._sequence: int | None = None
        self._replaced = False

    def open(self, sequence: int, client_label: str) -> OpenWorkspace:
        """none -> opening: the message that asks for it (reattaching the handle held)."""
        if self.state != "none":
            raise WorkspaceStateError(f"cannot open the workspace: it is already {self.state}")
        self.state = "opening"
        self._sequence = sequence
        return OpenWorkspace(sequence=sequence, reattach=self.handle, client_label=client_label)

    def answers(self, message: Rejected | WorkspaceOpened) -> bool:
        """Whether ``message`` answers the ``OpenWorkspace`` under way."""
        return self.state == "opening" and message.sequence == self._sequence

    def opened(self, message: WorkspaceOpened) -> None:
        """opening -> open, with the handle the service gave."""
        self._expect_answer(message)
        if self.handle is not None and not message.reattached:
            _log.warning("the service minted a fresh workspace; the previous one was not kept")
            self._replaced = True
        self.handle = message.workspace_id
        self._settle("open")

    def refused(self, message: Rejected) -> None:
        """opening -> none: the service would not open it."""
        self._expect_answer(message)
        self._settle("none")

    def connection_failed(self) -> None:
        """A connection attempt failed: an opening never reached the service."""
        if self.state == "opening":
            self._settle("none")

    def connection_lost(self) -> None:
        """The bridge went away: the workspace is opened again (reattached) when next needed."""
        self._settle("none")

    def take_replacement(self) -> bool:
        """True once after the service replaced the workspace (the next answer says so)."""
        replaced, self._replaced = self._replaced, False
        return replaced

    def _expect_answer(self, message: Rejected | WorkspaceOpened) -> None:
        if not self.answers(message):
            raise WorkspaceStateError(
                f"{type(message).__name__} for sequence {message.sequence} answers no opening"
                f" under way (the workspace is {self.state})"
            )

    def _settle(self, state: State) -> None:
        self.state = state
        self._sequence = None
