"""``script`` and ``browser_batch``: several tool calls in one request, in order.

Each step is a call of its own (``Effects.run_step``): validated, checked for tab ownership,
governed, leased and audited like any call, under the composition's workspace. Between steps
the composition stops when it is cancelled, when its time budget is spent, or on a step that
did not succeed (``script`` may go on past plain errors with ``onError: continue``; a step that
was held, stopped or whose outcome is unknown always stops it). What ran is reported step by
step; a step that never ran is ``not_run``, never a failure or a success.

``browser_batch`` runs a fixed list and returns each step's own content (images included).
``script`` lets a step use an earlier step's structured result: a whole string argument
``$prev.<path>`` or ``$<N>.<path>`` (N counted from 1, list indexes as numbers) is replaced by
that value; ``$$`` at the start stands for a literal ``$``. Any other string starting with ``$``
is passed on as it is.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

import attrs
import trio

from ..engine.contracts import ResultKind, ToolCall, ToolHandler, ToolResult
from ..transport.bridge import ContentBlock, ImageBlock, TextBlock
from ..transport.excerpt import quoted
from .shared.provenance import clip_fenced

BUDGET_MS = 45_000
"""No step starts once a composition has run this long: its answer then still comes within the
caller's 60 s reply deadline unless the last step itself runs long. ``budget_ms`` can only
lower it."""
STEP_CUTOFF_S = 52.0
"""A step still running this long after its composition started is cancelled, so the answer,
saying what ran, comes within the caller's 60 s: what it dispatched drains for 2 s at most
(the engine's ``STEP_DRAIN_S``), and still unanswered then, the step's outcome is unknown."""
BATCH_MAX = 100
"""Actions one browser_batch takes (a script takes 20): more could not run within the budget,
and each is a call of its own in the audit trail."""
STEP_TEXT_MAX = 2_000
"""A script step's text in the result, at most (the rest is cut, and says so)."""
SCRIPT_RESULT_MAX = 25_000
"""A script's whole result, at most (structured step results are dropped first)."""
STATUS = {
    "ok": "ok",
    "tool_error": "error",
    "denied": "denied",
    "held": "held",
    "cancelled": "cancelled",
    "outcome_unknown": "outcome_unknown",
}
"""A step's result kind, as its status."""
ALWAYS_STOPS = frozenset({"denied", "held", "cancelled", "outcome_unknown"})
"""Statuses that stop a script even with ``onError: continue``: going on after a refusal, a
stop or an effect of unknown outcome would act on a state nobody has seen."""


def composition_handlers() -> dict[str, ToolHandler]:
    return {"script": run_script, "browser_batch": run_batch}


@attrs.define
class _Step:
    number: int
    tool: str
    status: str
    result: ToolResult | None = None
    note: str = ""


@attrs.define
class _Run:
    """The steps of one composition as they happen, and why it stopped."""

    tools: list[str]
    budget_s: float
    started: float = attrs.Factory(trio.current_time)
    steps: list[_Step] = attrs.Factory(list)
    stopped: str = ""

    @property
    def total(self) -> int:
        return len(self.tools)

    @property
    def elapsed_ms(self) -> float:
        return round((trio.current_time() - self.started) * 1000, 1)

    def out_of_time(self) -> bool:
        return trio.current_time() - self.started >= self.budget_s

    def record(self, call: ToolCall, step: _Step) -> None:
        self.steps.append(step)
        shown = ", ".join(f"{s.number} {s.tool} {s.status}" for s in self.steps[-5:])
        if len(self.steps) > 5:  # the earlier ones ran too; only the last few are named
            shown = f"the last 5: {shown}"
        call.effects.done_so_far(f"{len(self.steps)} of {self.total} steps ran ({shown})")

    def summary(self) -> str:
        done = sum(1 for step in self.steps if step.status == "ok")
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


def _budget(arguments: Mapping[str, Any]) -> float | str:
    """The time budget in seconds, or why the given one is refused."""
    asked = arguments.get("budget_ms")
    if asked is None:
        return BUDGET_MS / 1000
    if asked <= 0:
        return f"budget_ms must be more than 0 (got {asked:g}); nothing ran."
    return float(min(asked, BUDGET_MS)) / 1000


async def _run_one(
    call: ToolCall, run: _Run, number: int, tool: str, arguments: Mapping[str, Any],
    tab: int | None = None,
) -> _Step:
    await call.effects.checkpoint()  # a cancelled composition starts no further step
    call.effects.progress(number - 1, run.total, f"step {number}: {tool}")
    cutoff = run.started + STEP_CUTOFF_S
    result = await call.effects.run_step(tool, arguments, number, tab=tab, deadline=cutoff)
    step = _Step(number, tool, STATUS.get(result.kind, "error"), result)
    if step.status == "cancelled" and trio.current_time() >= cutoff:
        step.note = f"stopped {STEP_CUTOFF_S:g} s into the composition, to answer in time"
    elif step.status == "outcome_unknown" and trio.current_time() >= cutoff:
        step.note = (
            f"still waiting on the browser {STEP_CUTOFF_S:g} s into the composition and cut"
            " there, to answer in time"
        )
    run.record(call, step)
    return step


def _stop_reason(step: _Step) -> str:
    if step.note and step.status == "cancelled":
        return f"step {step.number} was {step.note}"
    if step.status == "error":
        return f"step {step.number} failed"
    if step.note and step.status == "outcome_unknown":
        return f"the outcome of step {step.number} is unknown: it was {step.note}"
    if step.status == "outcome_unknown":
        return f"the outcome of step {step.number} is unknown"
    return f"step {step.number} {step.status}"


# --- browser_batch ---------------------------------------------------------------------------


async def run_batch(call: ToolCall) -> ToolResult:
    actions: Sequence[Mapping[str, Any]] = call.arguments["actions"]
    if len(actions) > BATCH_MAX:
        return ToolResult.error(
            f"browser_batch takes at most {BATCH_MAX} actions (got {len(actions)}); nothing ran."
            " Split them over several calls."
        )
    budget = _budget(call.arguments)
    assert isinstance(budget, float)
    run = _Run(tools=[str(action["name"]) for action in actions], budget_s=budget)
    content: list[ContentBlock] = []
    for number, action in enumerate(actions, 1):
        if number > 1 and run.out_of_time():
            run.stopped = f"time budget ({budget:g} s) spent after step {number - 1}"
            break
        step = await _run_one(call, run, number, action["name"], action["input"])
        assert step.result is not None
        if step.status == "ok":
            content.extend(_headed(f"step {number} ({step.tool}) ok", step.result.content))
            continue
        content.append(
            TextBlock(text=f"step {number} ({step.tool}) {step.status}: {_text(step.result)}")
        )
        run.stopped = _stop_reason(step)
        break
    summary = run.summary()
    first_not_run = len(run.steps) + 1
    if first_not_run == run.total:
        summary += f"; step {run.total} not run"
    elif first_not_run < run.total:
        summary += f"; steps {first_not_run}-{run.total} not run"
    content.append(TextBlock(text=summary))
    return ToolResult(kind=run.kind(), content=content)


def _headed(head: str, blocks: Sequence[ContentBlock]) -> list[ContentBlock]:
    """A step's own blocks, its first text prefixed with which step it is."""
    out = list(blocks)
    if out and isinstance(out[0], TextBlock):
        out[0] = TextBlock(text=f"{head}: {out[0].text}")
    else:
        out.insert(0, TextBlock(text=f"{head}:"))
    return out


def _text(result: ToolResult) -> str:
    return "\n".join(block.text for block in result.content if isinstance(block, TextBlock))


# --- script ----------------------------------------------------------------------------------


class _Unresolved(Exception):
    """A step argument refers to something no earlier step returned."""


_REFERENCE = re.compile(r"\$(prev|[0-9]+)((?:\.[^.\s]+)*)")
"""The whole shape of a reference: ``$prev`` or ``$<N>``, then ``.path`` parts. Any other
string starting with ``$`` (``$('h1')``, ``$x``) is plain text, passed on as it is."""


async def run_script(call: ToolCall) -> ToolResult:
    arguments = call.arguments
    steps: Sequence[Mapping[str, Any]] = arguments["steps"]
    budget = _budget(arguments)
    if isinstance(budget, str):
        return ToolResult.error(budget)
    tab = arguments.get("tabId")
    if arguments.get("dry_run"):
        return _script_result(_dry_run(call, steps, tab), call.context.workspace_id, dry=True)
    go_on = arguments.get("onError") == "continue"
    run = _Run(tools=[str(spec["tool"]) for spec in steps], budget_s=budget)
    for number, spec in enumerate(steps, 1):
        if number > 1 and run.out_of_time():
            run.stopped = f"time budget ({budget:g} s) spent after step {number - 1}"
            break
        tool = spec["tool"]
        try:
            step_arguments = _resolve(spec.get("args", {}), number, run.steps)
        except _Unresolved as problem:
            step = _Step(number, tool, "error", note=f"{problem} Nothing ran for this step.")
            run.record(call, step)
        else:
            step = await _run_one(call, run, number, tool, step_arguments, tab)
        if step.status == "ok":
            continue
        if step.status in ALWAYS_STOPS or not go_on:
            run.stopped = _stop_reason(step)
            break
    return _script_result(run, call.context.workspace_id)


def _resolve(value: Any, number: int, done: Sequence[_Step] | None) -> Any:
    """``value`` with every reference to an earlier step's structured result replaced. With
    ``done`` None (a dry run, where no step has run) references are only checked."""
    if isinstance(value, dict):
        return {key: _resolve(item, number, done) for key, item in value.items()}
    if isinstance(value, list):
        return [_resolve(item, number, done) for item in value]
    if not isinstance(value, str) or not value.startswith("$"):
        return value
    if value.startswith("$$"):
        return value[1:]
    match = _REFERENCE.fullmatch(value)
    if match is None:
        return value
    which, path = match.group(1), match.group(2)
    source = number - 1 if which == "prev" else int(which)
    if not 1 <= source < number:
        raise _Unresolved(_no_such_step(value, number, dry=done is None))
    if done is None:
        return value
    step = next((s for s in done if s.number == source), None)
    if step is None or step.status != "ok" or step.result is None:
        raise _Unresolved(f"{quoted(value)} refers to step {source}, which did not succeed.")
    found: Any = step.result.structured
    if found is None:
        raise _Unresolved(
            f"{quoted(value)} refers to step {source} ({step.tool}), which returned no"
            " structured result."
        )
    for part in path.split(".")[1:]:
        if isinstance(found, list) and part.isdigit() and int(part) < len(found):
            found = found[int(part)]
        elif isinstance(found, dict) and part in found:
            found = found[part]
        else:
            raise _Unresolved(
                f"{quoted(value)}: step {source}'s structured result has no {part!r} there."
            )
    return found


def _no_such_step(value: str, number: int, *, dry: bool) -> str:
    """Why a reference names no earlier step: which ones there are, and how to write the text
    itself."""
    if number == 1:
        before = "there is no earlier step"
    elif number == 2:
        before = "step 1 " + ("comes" if dry else "ran") + " before this one"
    else:
        before = f"steps 1 to {number - 1} " + ("come" if dry else "ran") + " before this one"
    return (
        f"{quoted(value)} refers to an earlier step's result, but {before}. For the text itself,"
        f" write {quoted('$' + value)} ($$ stands for a literal $)."
    )


def _dry_run(
    call: ToolCall, steps: Sequence[Mapping[str, Any]], tab: int | None
) -> _Run:
    """What would be refused before running: unknown tools, nesting, bad arguments, references
    to no earlier step, tabs outside the workspace. Nothing is dispatched."""
    run = _Run(tools=[str(spec["tool"]) for spec in steps], budget_s=0)
    for number, spec in enumerate(steps, 1):
        tool, step_arguments = spec["tool"], spec.get("args", {})
        try:
            _resolve(step_arguments, number, None)
        except _Unresolved as unresolved:
            run.steps.append(_Step(number, tool, "invalid", note=str(unresolved)))
            continue
        refused = call.effects.check_step(tool, step_arguments, tab=tab)
        if refused is None:
            run.steps.append(_Step(number, tool, "would_run"))
        else:
            run.steps.append(_Step(number, tool, refused[0], note=refused[1]))
    return run


def _script_result(run: _Run, workspace_id: str | None, *, dry: bool = False) -> ToolResult:
    results = [_step_record(step, workspace_id) for step in run.steps]
    results += [
        {"step": number, "tool": run.tools[number - 1], "status": "not_run"}
        for number in range(len(run.steps) + 1, run.total + 1)
    ]
    if dry:
        accepted = sum(1 for step in run.steps if step.status == "would_run")
        summary = (
            f"dry run: {accepted}/{run.total} steps would be accepted; nothing ran. Hold, policy"
            " and the tab's state are checked when each step runs."
        )
        kind: ResultKind = "ok"
    else:
        summary, kind = run.summary(), run.kind()
    body = {"results": results, "summary": summary, "duration_ms": run.elapsed_ms}
    text = json.dumps(body, indent=2, ensure_ascii=False)
    if len(text) > SCRIPT_RESULT_MAX:
        for record in results:
            if "structured" in record:
                record["structured"] = "(left out: the whole result was too large)"
        text = json.dumps(body, indent=2, ensure_ascii=False)
    if len(text) > SCRIPT_RESULT_MAX:
        for record in results:
            if len(record.get("result", "")) > 300:
                record["result"] = clip_fenced(record["result"], 300, workspace_id)
        text = json.dumps(body, indent=2, ensure_ascii=False)
    return ToolResult(kind=kind, content=[TextBlock(text=text)], structured=body)


def _step_record(step: _Step, workspace_id: str | None) -> dict[str, Any]:
    record: dict[str, Any] = {"step": step.number, "tool": step.tool, "status": step.status}
    text = step.note
    if step.result is not None:
        text = _text(step.result)
        images = sum(1 for block in step.result.content if isinstance(block, ImageBlock))
        if images:
            text += f"\n({images} image(s) not shown here; browser_batch returns images)"
        if step.result.structured is not None:
            record["structured"] = step.result.structured
    if text:
        record["result"] = clip_fenced(text, STEP_TEXT_MAX, workspace_id)
    return record
