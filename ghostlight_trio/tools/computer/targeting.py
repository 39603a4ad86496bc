"""Where a computer action aims: a ref's centre once a click there reaches it, or a model
(screenshot) coordinate mapped to CSS pixels; refused, with no input sent, where the point would
reach something else or an embedded frame of a site the call may not reach."""

from __future__ import annotations

import math
from typing import Any

from ...engine.contracts import ToolCall, ToolResult
from ..shared.channel import KEPT_MOVING, SETTLE_THEN_RETRY
from ..shared.guard import ToolInputError
from ..shared.provenance import origin_of, provenance, wrap_page_text
from ..shared.shaping import actionable, element_line
from .frame_reach import OtherSiteRefused, refuse_frames_at, refuse_frames_focused
from .input import CLICKS
from .parts import OBSERVE_TIMEOUT, ComputerParts

FAR_PX = 100_000
"""CSS pixels from the viewport past which a point is no page's (and would not even travel)."""
FRAME_TAGS = frozenset({"IFRAME", "FRAME", "OBJECT", "EMBED"})
"""Elements that hold a document of their own: input on them goes into it."""
EDGE_PX = 1.0
"""How far inside an element's box the pointer must be to count as on it."""


class RefUnreachable(Exception):
    """A pointer action by ref whose point would not reach the ref's element; ``result`` says
    why and what to do."""

    def __init__(self, result: ToolResult) -> None:
        super().__init__(_said(result))
        self.result = result


async def target_point(
    parts: ComputerParts, call: ToolCall, tab: int, *, watch_press: dict[str, Any] | None = None,
    looked_again: bool = False,
) -> tuple[float, float, dict[str, Any] | None, dict[str, Any] | None, str]:  # fmt: skip
    """Where to act: (css x, css y, target element, observation before, assurance).
    ``watch_press`` ({presses, releases}): the page also watches where the action's presses
    land on the target (the ref's element, or what is at the point), and the observation
    names that watch (``pressWatch``). ``looked_again``: the caller looks at a ref's element
    again once the pointer is on it (a click), so one in view that a click at its centre
    reaches now is taken without waiting a frame to see it at rest."""
    ref = call.arguments.get("ref")
    if isinstance(ref, str) and ref:
        return await _ref_point(parts, call, tab, ref, watch_press, quick=looked_again)
    x, y = model_point(parts, call, tab, "coordinate")
    watch = {"watchPress": watch_press} if watch_press is not None else {}
    before = await parts.observe(call, tab, x=x, y=y, near=True, **watch)
    viewport = before.get("viewport") if before else None
    if isinstance(viewport, dict) and not inside(x, y, viewport):
        given = call.arguments["coordinate"]
        raise ToolInputError(
            f"coordinate ({shown(given[0])}, {shown(given[1])}) is outside the visible page"
            f" (viewport {shown(viewport.get('width'))}x{shown(viewport.get('height'))} CSS px,"
            f" the point maps to ({shown(x)}, {shown(y)})); nothing was sent. Take a screenshot"
            " and pick a point inside it, or use a ref from read_page or find."
        )
    refuse_other_site(call, before, "frameAt")
    if before is not None and before.get("pointInFrame"):
        await refuse_frames_at(parts.channel, call, tab, x, y)
    target = before.get("target") if before else None
    return x, y, target, before, "coordinate"


async def _ref_point(
    parts: ComputerParts, call: ToolCall, tab: int, ref: str,
    watch_press: dict[str, Any] | None = None, *, quick: bool = False,
) -> tuple[float, float, dict[str, Any] | None, dict[str, Any] | None, str]:  # fmt: skip
    """The ref's centre once a click there reaches it: out of view (below the fold, or
    scrolled away inside a scroll container) it is scrolled to the middle first, and what
    the point would hit is checked, as act_on does. A point that would reach something else
    (a sticky header, a banner, the container it is clipped by) is refused, no input sent."""
    before = await parts.channel.observe_ref(
        call, tab, ref, OBSERVE_TIMEOUT, near=True, watch_press=watch_press, hit=quick
    )
    in_view = bool(before["target"].get("inViewport"))
    seen = before.get("hit")
    if quick and in_view and isinstance(seen, dict) and seen.get("hit") is True:
        hit: dict[str, Any] = {"hit": True, "target": before["target"]}
    else:
        hit = await parts.channel.reach_ref(call, tab, ref, in_view=in_view)
    if not hit.get("hit"):
        raise RefUnreachable(_unreachable(call, ref, hit, before))
    target = hit["target"]
    x, y = float(target["x"]), float(target["y"])
    if str(target.get("tag", "")).upper() in FRAME_TAGS:
        await refuse_frames_at(parts.channel, call, tab, x, y)
    return x, y, target, before, "ref"


def model_point(parts: ComputerParts, call: ToolCall, tab: int, key: str) -> tuple[float, float]:
    point = call.arguments.get(key)
    if not isinstance(point, list | tuple) or len(point) != 2:
        need = (
            "coordinate or ref is required." if key == "coordinate" else f"{key} is required."
        )
        raise ToolInputError(need)
    x, y = parts.contexts.to_css(tab, float(point[0]), float(point[1]))
    if not all(math.isfinite(v) and abs(v) <= FAR_PX for v in (x, y)):
        raise ToolInputError(
            f"{key} ({shown(point[0])}, {shown(point[1])}) is far outside any page; nothing was"
            " sent. Take a screenshot and pick a point inside it."
        )
    return x, y


FOCUS_FACTS = ("focusFrame", "focusInFrame")
"""What an observation says of keyboard focus in an embedded frame: all that
``refuse_focused_frames`` judges (absent, it lets input through unasked)."""


async def refuse_focused_frames(
    parts: ComputerParts, call: ToolCall, tab: int, before: dict[str, Any] | None
) -> None:
    """Typing and keys go where the keyboard focus is: into an embedded frame, they reach
    that frame's site (named by the browser, not by the frame's ``src``)."""
    refuse_other_site(call, before, "focusFrame")
    if before is not None and before.get("focusInFrame"):
        focused = before.get("focused")
        point = (
            (float(focused["x"]), float(focused["y"]))
            if isinstance(focused, dict) and _is_number(focused.get("x")) and _is_number(focused.get("y"))
            else None
        )
        await refuse_frames_focused(parts.channel, call, tab, point)


def label(call: ToolCall, x: float, y: float) -> str:
    given = call.arguments.get("coordinate")
    if call.arguments.get("ref"):
        return f"{call.arguments['ref']} ({shown(x)}, {shown(y)})"
    if isinstance(given, list | tuple) and len(given) == 2:
        return f"({shown(given[0])}, {shown(given[1])})"
    return f"({shown(x)}, {shown(y)})"


def shown(value: Any) -> str:
    """A number as short text: integers without a decimal point, huge ones in exponent form."""
    number = float(value)
    if not math.isfinite(number) or abs(number) >= 1e9:
        return f"{number:g}"
    if number.is_integer():
        return str(int(number))
    return f"{number:.1f}"


def inside(x: float, y: float, viewport: dict[str, Any]) -> bool:
    """Whether a CSS point lies in the page's viewport (unknown sizes count as inside)."""
    width, height = viewport.get("width"), viewport.get("height")
    if not isinstance(width, int | float) or not isinstance(height, int | float):
        return True
    return 0 <= x < width and 0 <= y < height


def holds(box: Any, x: float, y: float) -> bool:
    """Whether the point lies inside ``box`` ({x, y, width, height}, CSS px), off its edge."""
    if not isinstance(box, dict):
        return False
    left, top = float(box.get("x", 0)), float(box.get("y", 0))
    right, bottom = left + float(box.get("width", 0)), top + float(box.get("height", 0))
    return left + EDGE_PX <= x <= right - EDGE_PX and top + EDGE_PX <= y <= bottom - EDGE_PX


def _unreachable(
    call: ToolCall, ref: str, hit: dict[str, Any], before: dict[str, Any]
) -> ToolResult:
    """Why a pointer action by ref was refused, with no input sent, and what to do instead."""
    action = str(call.arguments.get("action", ""))
    pointer = "a click" if action in CLICKS else "the pointer"
    target = hit["target"]
    point = f"({shown(target.get('x', 0))}, {shown(target.get('y', 0))})"
    lead = f"{action} was not done: no input was sent, because {ref}"
    covering = hit.get("covering") if isinstance(hit.get("covering"), dict) else None
    if hit.get("moving"):
        return ToolResult.error(
            f"{lead} {KEPT_MOVING}: {pointer} aimed at it could land on whatever takes its"
            f" place. {SETTLE_THEN_RETRY}"
        )
    if not target.get("visible"):
        return ToolResult.error(
            f"{lead} is not visible on the page (hidden, collapsed, or without a size), so it has"
            " no point to act at. Check it with find or read_page; if a menu or panel holds it,"
            " open that first (an option of a select is chosen with form_input on the select)."
        )
    if isinstance(target.get("clippedBy"), dict):
        text = (
            f"{lead} lies outside the visible part of its container even after it was scrolled"
            f" into view: its centre {point} is cut off, so {pointer} there would reach something"
            " else. Scroll that container (computer scroll with a coordinate inside it), or take"
            " a screenshot and use a point of it you can see."
        )
    elif covering is not None:
        other = str(covering.get("ref") or "that element")
        text = (
            f"{lead} is covered at its centre {point}, even scrolled to the middle of the view:"
            f" {pointer} there would reach {other} instead (below). Close or move what covers it"
            f" (a banner, a dialog, an open menu) and retry, or act on {other} if that is what"
            " you meant."
        )
    else:
        return ToolResult.error(
            f"{lead} is outside the visible page even after it was scrolled to: nothing of the"
            f" page is at its centre {point}. Take a screenshot and use a point of it you can"
            " see, or check it with find."
        )
    if covering is None:
        return ToolResult.error(text)
    # What is on top is the page's own words: fenced as page content, like find's.
    origin = origin_of(str(before.get("url", "")))
    ws = call.context.workspace_id
    shaped = actionable(covering)
    listed = wrap_page_text(element_line(shaped, covering.get("text")), ws, origin)
    structured = {"covering": shaped, "provenance": provenance(ws, origin)}
    return ToolResult.text(
        f"{text}\nWhat {pointer} at that point would reach:\n{listed}",
        kind="tool_error",
        structured=structured,
    )


def _said(result: ToolResult) -> str:
    return " ".join(getattr(block, "text", "") for block in result.content)


def refuse_other_site(call: ToolCall, before: dict[str, Any] | None, key: str) -> None:
    """Before sending input: where it lands (``frameAt``) or where typing goes (``focusFrame``)
    may be an embedded frame of another site, which the page's own host does not answer for."""
    frame = before.get(key) if before else None
    if isinstance(frame, str) and frame:
        denied = call.effects.denied_at(frame)
        if denied is not None:
            raise OtherSiteRefused(denied)


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)
