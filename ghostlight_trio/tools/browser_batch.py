"""``browser_batch``: a fixed list of tool calls in one request, in order, each step's own
content (images included) in the answer. It stops at the first step that does not succeed
(see ``shared/composition.py`` for what every composition shares)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..engine.contracts import ToolCall, ToolResult
from ..transport.bridge import ContentBlock, TextBlock
from .shared.composition import Run, budget_of, result_text, run_one, stop_reason

BATCH_MAX = 100
"""Actions one browser_batch takes (a script takes 20): more could not run within the budget,
and each is a call of its own in the audit trail."""


async def run_batch(call: ToolCall) -> ToolResult:
    actions: Sequence[Mapping[str, Any]] = call.arguments["actions"]
    if len(actions) > BATCH_MAX:
        return ToolResult.error(
            f"browser_batch takes at most {BATCH_MAX} actions (got {len(actions)}); nothing ran."
            " Split them over several calls."
        )
    budget = budget_of(call.arguments)
    assert isinstance(budget, float)
    run = Run(tools=[str(action["name"]) for action in actions], budget_s=budget)
    content: list[ContentBlock] = []
    for number, action in enumerate(actions, 1):
        if number > 1 and run.out_of_time():
            run.stopped = f"time budget ({budget:g} s) spent after step {number - 1}"
            break
        step = await run_one(call, run, number, action["name"], action["input"])
        assert step.result is not None
        if step.ok:
            content.extend(_headed(f"step {number} ({step.tool}) ok", step.result.content))
            continue
        content.append(
            TextBlock(text=f"step {number} ({step.tool}) {step.status}: {result_text(step.result)}")
        )
        run.stopped = stop_reason(step)
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
