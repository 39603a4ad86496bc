"""A composition's run, shared by ``script`` and ``browser_batch``: its steps, its time budget,
and how it stops.

Each step is a call of its own (``Effects.run_step``): validated, checked for tab ownership,
governed, leased and audited like any call, under the composition's workspace. Between steps
the composition stops when it is cancelled, when its time budget is spent, or on a step that
did not succeed. What ran is reported step by step; a step that never ran is ``not_run``, never
a failure or a success.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs
import trio

from ...engine.contracts import ResultKind, ToolCall, ToolResult
from ...transport.bridge import TextBlock

BUDGET_MS = 45_000
"""No step starts once a composition has run this long: its answer then still comes within the
caller's 60 s reply deadline unless the last step itself runs long. ``budget_ms`` can only
lower it."""
STEP_CUTOFF_S = 52.0
"""A step still running this long after its composition started is cancelled, so the answer,
saying what ran, comes within the caller's 60 s: what it dispatched drains for 2 s at most
(the engine's ``STEP_DRAIN_S``), and still unanswered then, the step's outcome is unknown."""
STATUS = {
    "ok": "ok",
    "tool_error": "error",
    "denied": "denied",
    "held": "held",
    "cancelled": "cancelled",
    "outcome_unknown": "outcome_unknown",
}
"""A step's result kind, as its status."""


@attrs.define
class Step:
    """One step of a composition, as it ran or was refused."""

    number: int
    """Counted from 1."""
    tool: str
    status: str
    """A ``STATUS`` value; in a dry run, ``would_run`` or why it would not."""
    result: ToolResult | None = None
    note: str = ""
    """Why it stopped or was refused, when its result does not say."""

    @property
    def ok(self) -> bool:
        return self.status == "ok"


@attrs.define
class Run:
    """The steps of one composition as they happen, and why it stopped."""

    tools: list[str]
    """The tool of each step, in order."""
    budget_s: float
    started: float = attrs.Factory(trio.current_time)
    steps: list[Step] = attrs.Factory(list)
    """The steps that ran (or were refused) so far."""
    stopped: str = ""
    """Why the run stopped before its last step ("" while it goes on)."""

    @property
    def total(self) -> int:
        return len(self.tools)

    @property
    def elapsed_ms(self) -> float:
        return round((trio.current_time() - self.started) * 1000, 1)

    def out_of_time(self) -> bool:
        return trio.current_time() - self.started >= self.budget_s

    def record(self, call: ToolCall, step: Step) -> None:
        self.steps.append(step)
        shown = ", ".join(f"{s.number} {s.tool} {s.status}" for s in self.steps[-5:])
        if len(self.steps) > 5:  # the earlier ones ran too; only the last few are named
            shown = f"the last 5: {shown}"
        call.effects.done_so_far(f"{len(self.steps)} of {self.total} steps ran ({shown})")

    def summary(self) -> str:
        done = sum(1 for step in self.steps if step.ok)
        text = f"{done}/{self.total} steps completed"
        return f"{text}; {self.stopped}" if self.stopped else text

    def kind(self) -> ResultKind:
        """Unknown when any step's outcome is; a refusal or a stop that ended the run is the
        run's own kind (so the audit trail says what stopped it); else an error."""
        statuses = {step.status for step in self.steps}
        if "outcome_unknown" in statuses:
            return "outcome_unknown"
        if statuses <= {"ok"} and len(self.steps) == self.total:
            return "ok"
        last = self.steps[-1] if self.steps else None
        if last is not None and last.status in ("denied", "held"):
            return "denied" if last.status == "denied" else "held"
        if last is not None and last.status == "cancelled" and not last.note:
            # Not cut to answer in time: the step was stopped with the whole composition (the
            # kill switch, the caller's cancel), and the record says so.
            return "cancelled"
        return "tool_error"


def budget_of(arguments: Mapping[str, Any]) -> float | str:
    """The time budget in seconds, or why the given one is refused."""
    asked = arguments.get("budget_ms")
    if asked is None:
        return BUDGET_MS / 1000
    if asked <= 0:
        return f"budget_ms must be more than 0 (got {asked:g}); nothing ran."
    return float(min(asked, BUDGET_MS)) / 1000


async def run_one(
    call: ToolCall, run: Run, number: int, tool: str, arguments: Mapping[str, Any],
    tab: int | None = None,
) -> Step:
    await call.effects.checkpoint()  # a cancelled composition starts no further step
    call.effects.progress(number - 1, run.total, f"step {number}: {tool}")
    cutoff = run.started + STEP_CUTOFF_S
    result = await call.effects.run_step(tool, arguments, number, tab=tab, deadline=cutoff)
    step = Step(number, tool, STATUS.get(result.kind, "error"), result)
    if step.status == "cancelled" and trio.current_time() >= cutoff:
        step.note = f"stopped {STEP_CUTOFF_S:g} s into the composition, to answer in time"
    elif step.status == "outcome_unknown" and trio.current_time() >= cutoff:
        step.note = (
            f"still waiting on the browser {STEP_CUTOFF_S:g} s into the composition and cut"
            " there, to answer in time"
        )
    run.record(call, step)
    return step


def stop_reason(step: Step) -> str:
    if step.note and step.status == "cancelled":
        return f"step {step.number} was {step.note}"
    if step.status == "error":
        return f"step {step.number} failed"
    if step.note and step.status == "outcome_unknown":
        return f"the outcome of step {step.number} is unknown: it was {step.note}"
    if step.status == "outcome_unknown":
        return f"the outcome of step {step.number} is unknown"
    return f"step {step.number} {step.status}"


def result_text(result: ToolResult) -> str:
    return "\n".join(block.text for block in result.content if isinstance(block, TextBlock))
