"""The ``computer`` actions that look or move the view: screenshot, zoom, scroll and scroll_to,
and ``wait``. A new screenshot (or zoom) is the tab's coordinate model from then on."""

from __future__ import annotations

import trio

from ...engine.contracts import ToolCall, ToolResult
from ..shared.capture import capture, probe
from ..shared.dialogs import PageDialog
from ..shared.guard import ToolInputError
from ..shared.screenshots import full_view
from .frame_reach import refuse_frames_at
from .input import mouse_step, send
from .page_script import scroll_moved, scroll_probe
from .parts import ComputerParts
from .receipt import finish, image_result
from .targeting import model_point, shown

WHEEL_TICK = 100
"""CSS pixels per scroll tick."""
WAIT_DEFAULT = 1.0
WAIT_MAX = 10.0
WAIT_SLICE = 0.25


async def screenshot(parts: ComputerParts, call: ToolCall, tab: int) -> ToolResult:
    shot = await capture(parts.channel, call, tab, last=parts.contexts.get(tab))
    parts.contexts.put(tab, shot.context)
    return image_result(parts, call, "Screenshot captured (jpeg).", shot)


async def zoom(parts: ComputerParts, call: ToolCall, tab: int) -> ToolResult:
    region = call.arguments.get("region")
    if not isinstance(region, list | tuple) or len(region) != 4:
        raise ToolInputError("region [x0, y0, x1, y1] is required for zoom.")
    context = parts.contexts.get(tab)
    if context is None:
        view = await probe(parts.channel, call, tab)
        context = full_view(view.width, view.height, (round(view.width), round(view.height)))
    css = context.region_to_css(*(float(v) for v in region))
    if css is None:
        raise ToolInputError(
            "The zoom region is empty or outside the viewport; take a screenshot and pick"
            " a region inside it."
        )
    shot = await capture(parts.channel, call, tab, css)
    parts.contexts.put(tab, shot.context)
    x, y, w, h = css
    summary = (
        f"Zoomed into region ({', '.join(shown(v) for v in region)}) = CSS"
        f" ({shown(x)}, {shown(y)}) {shown(w)}x{shown(h)}; coordinates in this image map back into it."
    )
    if shot.whole_view:
        summary = (
            "The tab is in the background and Chrome only drew its whole viewport, so this"
            " image is the whole viewport, not the zoom region; coordinates in this image"
            " map to the whole viewport."
        )
    return image_result(parts, call, summary, shot)


async def scroll(parts: ComputerParts, call: ToolCall, tab: int) -> ToolResult:
    direction = call.arguments.get("scroll_direction") or "down"
    if direction not in ("up", "down", "left", "right"):
        raise ToolInputError("scroll_direction must be up, down, left or right.")
    ticks = int(call.arguments.get("scroll_amount") or 3)
    distance = max(1, min(10, ticks)) * WHEEL_TICK
    dx = {"left": -distance, "right": distance}.get(direction, 0)
    dy = {"up": -distance, "down": distance}.get(direction, 0)
    if isinstance(call.arguments.get("coordinate"), list | tuple):
        x, y = model_point(parts, call, tab, "coordinate")
    else:
        view = await probe(parts.channel, call, tab)
        x, y = view.width / 2, view.height / 2
    await refuse_frames_at(parts.channel, call, tab, x, y)  # the wheel goes to what is there
    before = await scroll_probe(parts.channel, call, tab, x, y)
    wheel = mouse_step("mouseWheel", x, y, deltaX=dx, deltaY=dy)
    done = f"Scrolled {direction} {distance // WHEEL_TICK} tick(s)."
    await send(parts.channel, call, tab, [wheel], summary=done)
    try:
        moved = await scroll_moved(parts.channel, call, tab, x, y, before)
        note = ""
        if not moved:
            await scroll_probe(parts.channel, call, tab, x, y, dx=dx, dy=dy)
            moved = await scroll_moved(parts.channel, call, tab, x, y, before, settle=0.1)
            note = (
                " The wheel did not move the page; scrolled it directly."
                if moved
                else " Nothing scrolled: the page or element may already be at its end."
            )
        shot = await capture(parts.channel, call, tab, last=parts.contexts.get(tab))
    except PageDialog as stop:
        stop.stage, stop.summary = "after", done
        raise
    parts.contexts.put(tab, shot.context)
    return image_result(parts, call, f"{done}{note}", shot)


async def scroll_to(parts: ComputerParts, call: ToolCall, tab: int) -> ToolResult:
    ref = call.arguments.get("ref")
    if not isinstance(ref, str) or not ref:
        point = call.arguments.get("coordinate")
        if not isinstance(point, list | tuple) or len(point) != 2:
            raise ToolInputError("ref is required for scroll_to.")
        # A document position, taken as given (not a screenshot point).
        expression = f"window.scrollTo({float(point[0])}, {float(point[1])})"
        await parts.channel.cdp(call, tab, "Runtime.evaluate", {"expression": expression})
        parts.contexts.invalidate([tab])
        return ToolResult.text("Scrolled to target.", structured={})
    before = await parts.observe(call, tab)
    target = await parts.channel.content(call, tab, "scroll_into_view", {"ref": ref})
    return await finish(
        parts, call, tab, "Scrolled to target.", before, assurance="ref", target=target
    )


async def wait(parts: ComputerParts, call: ToolCall, tab: int) -> ToolResult:
    raw = call.arguments.get("duration")
    seconds = WAIT_DEFAULT if raw is None else float(raw)
    seconds = min(max(0.0, seconds), WAIT_MAX)
    deadline = trio.current_time() + seconds
    while (left := deadline - trio.current_time()) > 0:
        await trio.sleep(min(WAIT_SLICE, left))
        await call.effects.checkpoint()
    return ToolResult.text(f"Waited {shown(seconds)}s.", structured={})
