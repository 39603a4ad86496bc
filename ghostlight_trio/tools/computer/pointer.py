"""The pointer actions of ``computer``: clicks, hover and drag. Where each press goes down and
comes up is watched on its target, so a press that lands on something else is never reported
as the click asked for."""

from __future__ import annotations

from typing import Any

import trio

from ...browser.errors import BrowserError
from ...engine.contracts import ToolCall, ToolResult
from ..shared.channel import KEPT_MOVING, SETTLE_THEN_RETRY
from ..shared.dialogs import PageDialog
from ..shared.guard import ToolInputError
from ..shared.keys import modifier_bits
from .frame_reach import refuse_frames_at
from .input import BUTTON_BITS, CLICKS, mouse_step, send
from .parts import ComputerParts
from .receipt import finish, settle_args
from .targeting import (
    RefUnreachable,
    holds,
    inside,
    label,
    model_point,
    refuse_other_site,
    shown,
    target_point,
)

CLICK_GAP = 0.03
"""Pause between the press/release pairs of a multi-click."""
DRAG_STEPS = 10
DRAG_STEP_GAP = 0.016
POINTER_FOLLOWS = 5
"""Times a click by ref follows its element to where it went once the pointer arrived (it
jumped aside, or it is still sliding into place as the page lays itself out)."""


async def click(parts: ComputerParts, call: ToolCall, tab: int) -> ToolResult:
    action = str(call.arguments["action"])
    button, count = CLICKS[action]
    bits = modifier_bits(call.arguments.get("modifiers"))
    # Where each press goes down and comes up is watched on the target: one that lands on
    # something else (an overlay shown at that instant) is not said to have clicked it.
    watch = {"presses": count, "releases": True}
    x, y, target, before, assurance = await target_point(
        parts, call, tab, watch_press=watch, looked_again=True
    )
    steps = [mouse_step("mouseMoved", x, y, modifiers=bits)]
    if assurance == "ref":
        box = target.get("box") if isinstance(target, dict) else None
        x, y, target = await _under_pointer(parts, call, tab, x, y, bits, box)
        steps = []
    for number in range(1, count + 1):
        pressed: dict[str, Any] = {"button": button, "clickCount": number, "modifiers": bits}
        gap = CLICK_GAP if number > 1 else 0.0
        steps.append(
            mouse_step("mousePressed", x, y, pause=gap, buttons=BUTTON_BITS[button], **pressed)
        )
        steps.append(mouse_step("mouseReleased", x, y, buttons=0, **pressed))
    summary = f"{action} at {label(call, x, y)}."
    watch_token = before.get("pressWatch") if before else None
    where = settle_args(target, near=True, press_watch=watch_token)
    sent = await send(parts.channel, call, tab, steps, summary=summary, settle=where)
    return await finish(
        parts, call, tab, summary, before, assurance=assurance, target=target, near=True,
        press_watch=watch_token, settled=sent.settled,
    )  # fmt: skip


async def _under_pointer(
    parts: ComputerParts, call: ToolCall, tab: int, x: float, y: float, bits: int,
    box: dict[str, Any] | None = None,
) -> tuple[float, float, dict[str, Any]]:  # fmt: skip
    """Bring the pointer onto a ref's element as a person would, and look again before
    pressing: an element that moves when hovered (a "catch me" button, a menu that shifts)
    or is still sliding into place is followed to where it now is (``POINTER_FOLLOWS``
    times at most), and a click that would still miss it is refused with only the pointer
    moved. ``box``: where the element was before the pointer moved (a move waits for a
    rendered frame), so one still there is known to be at rest without waiting another
    frame. The point to press, and the element it reaches."""
    ref = str(call.arguments["ref"])
    moving = False
    for _ in range(1 + POINTER_FOLLOWS):
        moved = [mouse_step("mouseMoved", x, y, modifiers=bits)]
        await send(parts.channel, call, tab, moved, summary=f"The pointer moved to {ref}.", final=False)
        try:
            hit = await parts.channel.reach_ref(call, tab, ref, in_view=True, still=box)
        except BrowserError as changed:
            if changed.code not in ("stale_ref", "ref_not_found"):
                raise
            break  # it changed into something else, or went, as the pointer came
        target = hit["target"]
        if not hit.get("hit"):
            moving = bool(hit.get("moving"))
            break
        if holds(target.get("box"), x, y):
            return x, y, target  # still under the pointer, if not at its centre
        x, y = float(target.get("x", x)), float(target.get("y", y))
        box = None  # it moved: where it went is watched until it rests
    lead = f"{call.arguments.get('action')} was not done: the pointer was moved onto {ref}"
    if moving:
        why = (
            f"{lead}, but it {KEPT_MOVING}, so no button was pressed. {SETTLE_THEN_RETRY}"
        )
    else:
        why = (
            f"{lead}, and then the element moved away, changed or was covered (it reacts to"
            " the pointer), so no button was pressed. Take a screenshot to see where it is"
            " now, and click a point of it, or act on what took its place."
        )
    raise RefUnreachable(ToolResult.error(why))


async def hover(parts: ComputerParts, call: ToolCall, tab: int) -> ToolResult:
    x, y, target, before, assurance = await target_point(parts, call, tab)
    summary = f"Hovered at {label(call, x, y)}."
    await send(parts.channel, call, tab, [mouse_step("mouseMoved", x, y)], summary=summary)
    return await finish(
        parts, call, tab, summary, before, assurance=assurance, target=target, near=True
    )


async def drag(parts: ComputerParts, call: ToolCall, tab: int) -> ToolResult:
    sx, sy = model_point(parts, call, tab, "start_coordinate")
    ex, ey = model_point(parts, call, tab, "coordinate")
    bits = modifier_bits(call.arguments.get("modifiers"))
    # Where the press goes down is watched (not where it comes up: elsewhere, by design).
    watch = {"presses": 1, "releases": False}
    before = await parts.observe(call, tab, x=sx, y=sy, watchPress=watch)
    refuse_other_site(call, before, "frameAt")
    start = call.arguments["start_coordinate"]
    end = call.arguments["coordinate"]
    viewport = before.get("viewport") if before else None
    if isinstance(viewport, dict) and not (inside(sx, sy, viewport) and inside(ex, ey, viewport)):
        raise ToolInputError(
            f"A drag from ({shown(start[0])}, {shown(start[1])}) to ({shown(end[0])}, {shown(end[1])})"
            f" leaves the visible page (viewport {shown(viewport.get('width'))}x"
            f"{shown(viewport.get('height'))} CSS px); nothing was sent. Take a screenshot and"
            " pick both points inside it."
        )
    if before is not None and before.get("pointInFrame"):
        await refuse_frames_at(parts.channel, call, tab, sx, sy)
    if before is not None:  # a page that answers nothing (busy) answers no hit test either
        await refuse_frames_at(parts.channel, call, tab, ex, ey)  # where it is dropped
    summary = f"Dragged ({shown(start[0])}, {shown(start[1])}) -> ({shown(end[0])}, {shown(end[1])})."
    press: dict[str, Any] = {"button": "left", "clickCount": 1, "modifiers": bits}
    grab = [
        mouse_step("mouseMoved", sx, sy, modifiers=bits),
        mouse_step("mousePressed", sx, sy, buttons=1, **press),
    ]
    await send(parts.channel, call, tab, grab, summary=summary, final=False)
    moves = []
    for step in range(1, DRAG_STEPS + 1):
        px = sx + (ex - sx) * step / DRAG_STEPS
        py = sy + (ey - sy) * step / DRAG_STEPS
        moves.append(
            mouse_step(
                "mouseMoved",
                px,
                py,
                pause=DRAG_STEP_GAP,
                button="left",
                buttons=1,
                modifiers=bits,
            )
        )
    release = mouse_step("mouseReleased", ex, ey, buttons=0, **press)
    paused = False
    try:
        await send(parts.channel, call, tab, moves, summary=summary, started=True, final=False)
    except PageDialog:
        paused = True  # the page is paused: a release would be refused, so none is sent
        raise
    finally:
        # The button always comes up, so the page is never left mid-drag.
        if not paused:
            with trio.CancelScope(shield=True):
                await send(parts.channel, call, tab, [release], summary=summary, started=True)
    target = before.get("target") if before else None
    return await finish(
        parts, call, tab, summary, before, assurance="coordinate", target=target,
        press_watch=before.get("pressWatch") if before else None,
    )  # fmt: skip
