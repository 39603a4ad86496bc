"""The engine's one governance chokepoint, as the interface the runner calls.

The runner calls ``begin`` before a call is leased (hold, panic, attention: nothing queues
behind a stop), ``authorize`` once the lease is held (current authority: the live tab or the
navigate target, checked when nothing else can change it), ``after`` on the handler's result
(landing re-check) and ``end`` when the call has settled. ``stopped`` words the result of a call
the gate itself cancelled. Sessions call ``minted`` for each workspace they mint. ``OpenGate``
governs nothing; the service installs the real one.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Protocol

import attrs

from .call import CallState
from .contracts import Effects, ResultKind, ToolResult, WorkspaceId


@attrs.frozen
class GateFacts:
    """What the terminal audit record says about the decision (never arguments or paths)."""

    action: str | None = None
    host: str | None = None
    """The normalised host the decision was about; never a path or query."""
    decision: str | None = None
    """``allow``, ``deny``, ``shadow_deny`` or ``held``; None when never evaluated."""
    rule: str = ""
    grant: str = ""
    denial_id: str = ""
    manifest: str | None = None


NOT_EVALUATED = GateFacts()


@attrs.frozen
class GateStop:
    """The call must not run: settle it with this result kind and text."""

    kind: ResultKind
    text: str


class CallGate(Protocol):
    def begin(self, call: CallState) -> GateStop | None: ...

    async def authorize(self, call: CallState) -> GateStop | None: ...

    async def after(self, call: CallState, effects: Effects, result: ToolResult) -> ToolResult: ...

    def stopped(self, call: CallState) -> GateStop | None: ...

    def denied_at(self, call: CallState, url: str) -> str | None:
        """Why the running call may not reach a document at ``url`` (an embedded frame of
        another site), or None."""
        ...

    def closed_at(self, call: CallState, url: str) -> str | None:
        """The host of a document at ``url`` the call's workspace may not read, or None."""
        ...

    def minted(
        self, workspace: WorkspaceId, kin: Collection[WorkspaceId], *, replacing: bool = False
    ) -> None:
        """A workspace was just minted for a connection that holds ``kin``: what follows a
        client rather than one workspace (a pause) carries over to it. ``replacing``: it
        stands in for a workspace the client named that the service no longer knows."""
        ...

    def unowned_tab(self, call: CallState) -> None:
        """The call was denied for naming a tab its workspace does not own (unknown, closed or
        another workspace's: one answer for all)."""
        ...

    def end(self, call: CallState) -> None: ...


class OpenGate:
    """Allows everything and records nothing beyond the call itself."""

    def begin(self, call: CallState) -> GateStop | None:
        return None

    async def authorize(self, call: CallState) -> GateStop | None:
        return None

    async def after(self, call: CallState, effects: Effects, result: ToolResult) -> ToolResult:
        return result

    def stopped(self, call: CallState) -> GateStop | None:
        return None

    def denied_at(self, call: CallState, url: str) -> str | None:
        return None

    def closed_at(self, call: CallState, url: str) -> str | None:
        return None

    def minted(
        self, workspace: WorkspaceId, kin: Collection[WorkspaceId], *, replacing: bool = False
    ) -> None:
        return None

    def unowned_tab(self, call: CallState) -> None:
        return None

    def end(self, call: CallState) -> None:
        return None
