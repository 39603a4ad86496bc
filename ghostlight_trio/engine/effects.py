"""The effect gate a running handler gets: shielded atomic effects, step checkpoints, progress,
and composed steps run as calls of their own."""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Protocol, TypeVar

import trio

from ..transport.bridge import Progress
from . import texts
from .call import CallState
from .contracts import NotDispatched, ToolResult, UncertainEffect, requests_left_unanswered

T = TypeVar("T")


class StepRunner(Protocol):
    """Runs one composed step as a call of its own (the engine's ``CallRunner``)."""

    async def run_step(
        self, parent: CallState, tool: str, arguments: Mapping[str, Any], number: int,
        tab: int | None, deadline: float = math.inf,
    ) -> ToolResult: ...

    def check_step(
        self, parent: CallState, tool: str, arguments: Mapping[str, Any], tab: int | None
    ) -> tuple[str, str] | None: ...

    def denied_at(self, call: CallState, url: str) -> str | None: ...

    def closed_at(self, call: CallState, url: str) -> str | None: ...

    def dispatching(self, call: CallState) -> None:
        """The call is about to send its first effect."""
        ...


class CallEffects:
    """Implements ``contracts.Effects`` for one call."""

    def __init__(self, call: CallState, steps: StepRunner | None = None) -> None:
        self._call = call
        self._steps = steps

    async def atomic(self, effect: Callable[[], Awaitable[T]]) -> T:
        """Once dispatched, an effect drains even if the call is cancelled; only the call's
        settlement bound can cut it, and then its resource is quarantined."""
        await trio.lowlevel.checkpoint_if_cancelled()
        call = self._call
        if not call.dispatch_recorded and self._steps is not None:
            call.dispatch_recorded = True
            self._steps.dispatching(call)
        call.effects_dispatched += 1
        shielded = trio.CancelScope(shield=True, deadline=call.settle_by)
        with requests_left_unanswered() as cut, shielded:
            try:
                return await effect()
            except UncertainEffect as uncertain:
                call.uncertain_proof = uncertain.proof
                raise
            except NotDispatched:
                call.effects_dispatched -= 1  # it failed before anything was sent
                raise
        # Cut at the bound: the browser's late answer to the request it cut, when the browser
        # side named it, is the proof that frees the tab again.
        call.uncertain_proof = cut[-1] if cut else f"unsettled:{call.context.work_id}"
        raise UncertainEffect(call.uncertain_proof, texts.UNSETTLED)

    async def checkpoint(self) -> None:
        """A composition's step boundary: stop here if the call was cancelled."""
        await trio.lowlevel.checkpoint()

    def caller_cancelled(self) -> trio.Event:
        return self._call.caller_cancelled()

    def progress(self, progress: float, total: float | None = None, message: str = "") -> None:
        call = self._call
        if call.wants_progress and call.reported is None:
            call.sink.post_progress(
                Progress(
                    work_id=call.context.work_id, progress=progress, total=total, message=message
                )
            )

    def done_so_far(self, what: str) -> None:
        self._call.done_so_far = what

    async def run_step(
        self, tool: str, arguments: Mapping[str, Any], number: int, *, tab: int | None = None,
        deadline: float = math.inf,
    ) -> ToolResult:
        if self._steps is None:
            raise RuntimeError("this engine runs no composed steps")
        return await self._steps.run_step(self._call, tool, arguments, number, tab, deadline)

    def denied_at(self, url: str) -> str | None:
        return None if self._steps is None else self._steps.denied_at(self._call, url)

    def closed_at(self, url: str) -> str | None:
        return None if self._steps is None else self._steps.closed_at(self._call, url)

    def check_step(
        self, tool: str, arguments: Mapping[str, Any], *, tab: int | None = None
    ) -> tuple[str, str] | None:
        if self._steps is None:
            raise RuntimeError("this engine runs no composed steps")
        return self._steps.check_step(self._call, tool, arguments, tab)
