"""The contract between the engine and the tools it runs.

A tool handler receives one ``ToolCall`` (immutable facts plus the engine's effect gate) and
returns one ``ToolResult``. Handlers never see protocol shapes, work maps or streams.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Literal, Protocol, TypeVar

import attrs
import trio

from ..transport.bridge import ContentBlock, TextBlock
from ..workspace.handle import WorkspaceId as WorkspaceId  # part of the tool contract

ResultKind = Literal["ok", "tool_error", "denied", "held", "outcome_unknown", "cancelled"]
"""How a handler's call ended (``cancelled``: a composition stopped along with its call)."""

T = TypeVar("T")


@attrs.frozen
class WorkContext:
    """Everything the engine knows about one call, fixed when it starts."""

    work_id: str
    operation: str
    workspace_id: WorkspaceId | None
    client_label: str = ""
    restriction: Mapping[str, Any] | None = None


@attrs.frozen
class ToolResult:
    """A protocol-neutral result. ``workspace_id`` is set by context-creating tools."""

    kind: ResultKind
    content: list[ContentBlock] = attrs.Factory(list)
    structured: dict[str, Any] | None = None
    workspace_id: WorkspaceId | None = None

    @classmethod
    def text(cls, text: str, *, kind: ResultKind = "ok", **extra: Any) -> ToolResult:
        return cls(kind=kind, content=[TextBlock(text=text)], **extra)

    @classmethod
    def error(cls, text: str) -> ToolResult:
        return cls.text(text, kind="tool_error")


class Effects(Protocol):
    """What the engine lends a running handler."""

    async def atomic(self, effect: Callable[[], Awaitable[T]]) -> T:
        """Run one browser effect shielded from cancellation: once dispatched it drains.

        Raises ``trio.Cancelled`` *before* dispatch if the call was already cancelled.
        """

    async def checkpoint(self) -> None:
        """Between composed steps: raises if the call was cancelled meanwhile."""

    def caller_cancelled(self) -> trio.Event:
        """Set once the call's caller cancels it (or its stream is lost). An atomic effect
        still drains; one whose rest is only a wait (a page load) may end that wait sooner."""

    def progress(self, progress: float, total: float | None = None, message: str = "") -> None:
        """Report progress (dropped unless the caller asked for it)."""

    def done_so_far(self, what: str) -> None:
        """What of the action has taken effect so far, in words ("typed 12 of 40 characters");
        a call stopped part way says it, instead of only that something may have run."""

    async def run_step(
        self, tool: str, arguments: Mapping[str, Any], number: int, *, tab: int | None = None,
        deadline: float = math.inf,
    ) -> ToolResult:
        """Run one step of a composition as a call of its own, through the whole pipeline
        (validation, tab ownership, governance, its own lease, audit as ``<work id>/<number>``).
        ``tab`` is the tabId a step gets when it takes one and names none; at ``deadline``
        (Trio time) the step is cancelled and settles as cancelled, or, when an effect it sent
        is still unanswered shortly after, as an unknown outcome. Raises ``trio.Cancelled``
        when the composition is cancelled (the step settles first)."""

    def denied_at(self, url: str) -> str | None:
        """Why this call may not reach a document at ``url`` (an embedded frame of another
        site where a click lands or typing goes), or None when it may: the call was judged by
        its page's host, and a frame of another site is not that page."""

    def closed_at(self, url: str) -> str | None:
        """The host (or ``<scheme>:``) of a document at ``url`` whose words this call's
        workspace may not read (a dialog or a request of an embedded frame of a never-touch
        or denied site), or None when they may be shown. Decides nothing and counts nothing."""

    def check_step(
        self, tool: str, arguments: Mapping[str, Any], *, tab: int | None = None
    ) -> tuple[str, str] | None:
        """What would refuse this step before it runs, as (status, why): an unknown tool,
        a composition inside a composition, bad arguments, a tab outside the workspace.
        None when none of those would. Nothing is dispatched."""


@attrs.frozen
class ToolCall:
    context: WorkContext
    arguments: Mapping[str, Any]
    effects: Effects


ToolHandler = Callable[[ToolCall], Awaitable[ToolResult]]


class UncertainEffect(Exception):
    """Raised from inside ``Effects.atomic`` when a dispatched effect's outcome cannot be known.

    ``proof`` is the exact token (for example the browser request id) whose later terminal
    acknowledgement will clear the quarantine this puts on the resource.
    """

    def __init__(self, proof: str, message: str = "") -> None:
        super().__init__(message or "the effect's outcome is unknown")
        self.proof = proof


_CUT_REQUESTS: ContextVar[list[str] | None] = ContextVar("ghostlight_cut_requests", default=None)


def left_unanswered(proof: str) -> None:
    """Said by the browser side of a request that was sent and then given up before its answer
    came (the effect running it was cut at its bound): ``proof`` is what that answer, if it
    comes late, proves. ``Effects.atomic`` quarantines with it, so the answer frees the tab."""
    cut = _CUT_REQUESTS.get()
    if cut is not None:
        cut.append(proof)


@contextmanager
def requests_left_unanswered() -> Iterator[list[str]]:
    """The proofs ``left_unanswered`` is told within this block, in order (this task only)."""
    cut: list[str] = []
    token = _CUT_REQUESTS.set(cut)
    try:
        yield cut
    finally:
        _CUT_REQUESTS.reset(token)


class NotDispatched(Exception):
    """Mixed into the failures of an effect that failed before anything was sent (no browser
    attached, a request refused unsent): ``Effects.atomic`` does not count it as dispatched."""
