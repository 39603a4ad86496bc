"""``script``: several tool calls in one request, in order, one step able to use an earlier
step's structured result.

A whole string argument ``$prev.<path>`` or ``$<N>.<path>`` (N counted from 1, list indexes as
numbers) is replaced by that value; ``$$`` at the start stands for a literal ``$``. Any other
string starting with ``$`` is passed on as it is. A script may go on past plain errors with
``onError: continue``; a step that was held, stopped or whose outcome is unknown always stops
it (see ``shared/composition.py`` for what every composition shares).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from ..engine.contracts import ResultKind, ToolCall, ToolResult
from ..transport.bridge import ImageBlock, TextBlock
from ..untrusted.excerpt import quoted
from .shared.composition import Run, Step, budget_of, result_text, run_one, stop_reason
from .shared.provenance import clip_fenced

STEP_TEXT_MAX = 2_000
"""A script step's text in the result, at most (the rest is cut, and says so)."""
SCRIPT_RESULT_MAX = 25_000
"""A script's whole result, at most (structured step results are dropped first)."""
ALWAYS_STOPS = frozenset({"denied", "held", "cancelled", "outcome_unknown"})
"""Statuses that stop a script even with ``onError: continue``: going on after a refusal, a
stop or an effect of unknown outcome would act on a state nobody has seen."""


class _Unresolved(Exception):
    """A step argument refers to something no earlier step returned."""


_REFERENCE = re.compile(r"\$(prev|[0-9]+)((?:\.[^.\s]+)*)")
"""The whole shape of a reference: ``$prev`` or ``$<N>``, then ``.path`` parts. Any other
string starting with ``$`` (``$('h1')``, ``$x``) is plain text, passed on as it is."""


async def run_script(call: ToolCall) -> ToolResult:
    arguments = call.arguments
    steps: Sequence[Mapping[str, Any]] = arguments["steps"]
    budget = budget_of(arguments)
    if isinstance(budget, str):
        return ToolResult.error(budget)
    tab = arguments.get("tabId")
    if arguments.get("dry_run"):
        return _script_result(_dry_run(call, steps, tab), call.context.workspace_id, dry=True)
    go_on = arguments.get("onError") == "continue"
    run = Run(tools=[str(spec["tool"]) for spec in steps], budget_s=budget)
    for number, spec in enumerate(steps, 1):
        if number > 1 and run.out_of_time():
            run.stopped = f"time budget ({budget:g} s) spent after step {number - 1}"
            break
        tool = spec["tool"]
        try:
            step_arguments = _resolve(spec.get("args", {}), number, run.steps)
        except _Unresolved as problem:
            step = Step(number, tool, "error", note=f"{problem} Nothing ran for this step.")
            run.record(call, step)
        else:
            step = await run_one(call, run, number, tool, step_arguments, tab)
        if step.ok:
            continue
        if step.status in ALWAYS_STOPS or not go_on:
            run.stopped = stop_reason(step)
            break
    return _script_result(run, call.context.workspace_id)


def _resolve(value: Any, number: int, done: Sequence[Step] | None) -> Any:
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
    if step is None or not step.ok or step.result is None:
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
) -> Run:
    """What would be refused before running: unknown tools, nesting, bad arguments, references
    to no earlier step, tabs outside the workspace. Nothing is dispatched."""
    run = Run(tools=[str(spec["tool"]) for spec in steps], budget_s=0)
    for number, spec in enumerate(steps, 1):
        tool, step_arguments = spec["tool"], spec.get("args", {})
        try:
            _resolve(step_arguments, number, None)
        except _Unresolved as unresolved:
            run.steps.append(Step(number, tool, "invalid", note=str(unresolved)))
            continue
        refused = call.effects.check_step(tool, step_arguments, tab=tab)
        if refused is None:
            run.steps.append(Step(number, tool, "would_run"))
        else:
            run.steps.append(Step(number, tool, refused[0], note=refused[1]))
    return run


def _script_result(run: Run, workspace_id: str | None, *, dry: bool = False) -> ToolResult:
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


def _step_record(step: Step, workspace_id: str | None) -> dict[str, Any]:
    record: dict[str, Any] = {"step": step.number, "tool": step.tool, "status": step.status}
    text = step.note
    if step.result is not None:
        text = result_text(step.result)
        images = sum(1 for block in step.result.content if isinstance(block, ImageBlock))
        if images:
            text += f"\n({images} image(s) not shown here; browser_batch returns images)"
        if step.result.structured is not None:
            record["structured"] = step.result.structured
    if text:
        record["result"] = clip_fenced(text, STEP_TEXT_MAX, workspace_id)
    return record
