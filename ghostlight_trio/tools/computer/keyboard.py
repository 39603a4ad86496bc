"""The keyboard actions of ``computer``: ``type`` and ``key`` go where the keyboard focus is,
never into an embedded frame of a site the call may not reach."""

from __future__ import annotations

from ...engine.contracts import ToolCall, ToolResult
from ..shared.channel import Observed
from ..shared.guard import ToolInputError
from ..shared.keys import combo_events, key_events, parse_keys, type_steps
from ..shared.receipts import page_reacted
from .input import KEY, Look, Step, send
from .parts import OBSERVE_TIMEOUT, ComputerParts
from .receipt import finish
from .targeting import FOCUS_FACTS, refuse_focused_frames

TYPE_MAX_CHARS = 2000
NO_FOCUS = (
    "no field received the text (the page itself got the key presses). Click the field first"
    " (computer left_click, or act_on), or set its value with form_input."
)
"""``type`` presses one key per character, each waiting for the page to take it (4-7 ms here,
far more on a page with heavy key handlers): more than this could outlast the caller's 60 s and
then the tab, which stays quarantined while the rest is unknown. Longer text goes in parts, or
whole through ``form_input``."""


async def type_text(parts: ComputerParts, call: ToolCall, tab: int) -> ToolResult:
    text = call.arguments.get("text")
    if not isinstance(text, str) or not text:
        raise ToolInputError("text is required for type.")
    _refuse_aim(call)
    if len(text) > TYPE_MAX_CHARS:
        raise ToolInputError(
            f"type presses one key per character, so it takes at most {TYPE_MAX_CHARS}"
            f" characters per call ({len(text)} were given); nothing was typed. Type the"
            " text in parts, or set a field's whole value with form_input."
        )
    steps: list[Step] = []
    done: dict[int, str] = {}
    plan = type_steps(text)
    total, typed = sum(len(step.insert) or 1 for step in plan), 0
    for step in plan:
        # A checkpoint before each typed step, never between a key's down and up.
        if step.key is None:
            steps.append(("Input.insertText", {"text": step.insert}, 0.0, True))
        else:
            events = key_events(step.key, 0)
            steps.extend((KEY, event, 0.0, i == 0) for i, event in enumerate(events))
        typed += len(step.insert) or 1
        done[len(steps) - 1] = f"typed {typed} of {total} characters"
    summary = f"Typed {len(text)} character(s)."
    sent = await send(
        parts.channel, call, tab, steps, summary=summary, done=done, settle={},
        look=_focus_look(parts, call, tab),
    )  # fmt: skip
    before, settled = sent.before, sent.settled
    target = before.get("focused") if before else None
    assurance = "semantic" if target else "none"
    if before is None or target or before.get("editableDocument"):
        return await finish(
            parts, call, tab, summary, before, assurance=assurance, target=target, typed=text,
            settled=settled,
        )  # fmt: skip
    # Nothing had keyboard focus: the key presses went to the page itself, and text goes
    # into no field. Unless the page reacted to them, the call did not do what was asked.
    summary = f"{summary[:-1]}, but nothing on the page had keyboard focus: {NO_FOCUS}"
    result = await finish(
        parts, call, tab, summary, before, assurance=assurance, target=None, settled=settled
    )
    receipt = (result.structured or {}).get("interactionReceipt")
    if receipt is not None and not page_reacted(receipt["observedAfter"]):
        return ToolResult(kind="tool_error", content=result.content, structured=result.structured)
    return result  # the page reacted, or could not be seen settling: not said to be a failure


async def key(parts: ComputerParts, call: ToolCall, tab: int) -> ToolResult:
    text = call.arguments.get("text")
    if not isinstance(text, str) or not text.strip():
        raise ToolInputError("text is required for key, e.g. Enter or ctrl+a.")
    _refuse_aim(call)
    combos = parse_keys(text)
    repeat = int(call.arguments.get("repeat") or 1)
    if not 1 <= repeat <= 100:
        raise ToolInputError("repeat must be between 1 and 100.")
    steps: list[Step] = []
    for _ in range(repeat):
        for combo in combos:
            if combo.is_reload:
                ignore_cache = any(m.key == "Shift" for m in combo.modifiers)
                steps.append(("Page.reload", {"ignoreCache": ignore_cache}, 0.0, True))
                continue
            events = combo_events(combo)
            steps.extend((KEY, event, 0.0, i == 0) for i, event in enumerate(events))
    summary = f"Pressed: {text} (x{repeat})."
    sent = await send(
        parts.channel, call, tab, steps, summary=summary, settle={},
        look=_focus_look(parts, call, tab),
    )  # fmt: skip
    return await finish(
        parts, call, tab, summary, sent.before, assurance="none", target=None,
        settled=sent.settled,
    )  # fmt: skip


def _focus_look(parts: ComputerParts, call: ToolCall, tab: int) -> Look:
    """Keys go where the keyboard focus is: the page is looked at first, and input bound for
    an embedded frame is held until ``refuse_focused_frames`` judged where it would go."""

    async def judge(before: Observed) -> None:
        await refuse_focused_frames(parts, call, tab, before)

    return Look(hold_if=FOCUS_FACTS, judge=judge, bound=OBSERVE_TIMEOUT)


def _refuse_aim(call: ToolCall) -> None:
    """type and key go where the keyboard focus is; a ref or coordinate given with them would
    be ignored, and the text typed somewhere else than the agent meant."""
    aimed = [name for name in ("ref", "coordinate") if call.arguments.get(name) is not None]
    if aimed:
        action = call.arguments.get("action")
        raise ToolInputError(
            f"{action} sends keys to whatever has keyboard focus; it does not take {' or '.join(aimed)},"
            f" and nothing was sent. Click the field first (left_click with that {aimed[0]}), then"
            f" {action} without it; or set a field's whole value with form_input."
        )
