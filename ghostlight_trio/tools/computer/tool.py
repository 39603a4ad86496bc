"""``computer``: screenshots and mouse, keyboard, scroll and zoom input in one tab via CDP.

Model coordinates are screenshot pixels and go through the tab's latest screenshot context;
coordinates from refs are CSS pixels already and are used as they are. Input events go out as
one sequence per action; a JavaScript dialog that opens stops the sequence and the action
reports what was delivered and that the dialog is open (see ``page_dialogs.py``).
"""

from __future__ import annotations

import json
import math
from collections.abc import Awaitable, Callable, Iterator, Mapping
from typing import Any

import trio

from ...browser.errors import BrowserError, BrowserFailure
from ...browser.failures import BUSY_CODES
from ...engine.contracts import ToolCall, ToolResult
from ...transport.bridge import ContentBlock, ImageBlock, TextBlock
from ...transport.excerpt import excerpt
from ..shared.capture import Capture, capture, probe
from ..shared.channel import KEPT_MOVING, SETTLE_THEN_RETRY, PageChannel
from ..shared.dialogs import PageDialog, dialog_name, dialog_result
from ..shared.guard import ToolInputError, guarded
from ..shared.image_store import ImageStore
from ..shared.keys import combo_events, key_events, modifier_bits, parse_keys, type_steps
from ..shared.provenance import origin_of, provenance, wrap_page_text
from ..shared.receipts import build_receipt, observe_settled, page_reacted, receipt_result
from ..shared.screenshots import ContextBook, full_view
from ..shared.shaping import actionable, element_line
from .frame_reach import OtherSiteRefused, refuse_frames_at, refuse_frames_focused

CLICKS = {
    "left_click": ("left", 1),
    "right_click": ("right", 1),
    "double_click": ("left", 2),
    "triple_click": ("left", 3),
}
BUTTON_BITS = {"left": 1, "right": 2, "middle": 4}
CLICK_GAP = 0.03
"""Pause between the press/release pairs of a multi-click."""
DRAG_STEPS = 10
DRAG_STEP_GAP = 0.016
WHEEL_TICK = 100
"""CSS pixels per scroll tick."""
SCROLL_SETTLE = 0.6
"""How long a wheel scroll may take to show movement before the direct fallback."""
MOVED_PX = 5
WAIT_DEFAULT = 1.0
WAIT_MAX = 10.0
WAIT_SLICE = 0.25
OBSERVE_TIMEOUT = 5.0
PING_TIMEOUT = 2.0
UNANSWERED_AFTER = (
    "The input reached the browser, but the page has not answered since (a script of its own"
    " holds it, or it is stuck), so whether it took the input is not known. Look at the tab (a"
    " screenshot) before repeating the action; if it stays stuck, close the tab with tab_control"
    " and open a new one."
)
PRESSED_ELSEWHERE = (
    "{summary} But the press landed on another element (named in the receipt below), not on"
    " {aimed}: it moved, changed or was covered at the instant the button went down, so it did"
    " not take the {what}, and the press may have done something else than meant. {then}"
)
"""A press the page saw go down on something else than what it was aimed at (an overlay shown
at that instant, a target that jumped aside): not the action asked for, whatever it did."""
RELEASED_ELSEWHERE = (
    "{summary} But the press came up on another element (named in the receipt below), not on"
    " {aimed}: something came over it while the button was down, so it got no click (only what"
    " it does on the press itself, such as opening a menu, may have happened). {then}"
)
"""A press that went down on its target and came up on something else: the page gives the
click to neither, so the target was not clicked, whatever its press alone did."""
PRESSED_THEN = (
    "Take a screenshot to see what the press did and whether what came over the target is gone"
    " before trying again (if something keeps covering it, wait for it to go or close it first)."
)
TYPE_MAX_CHARS = 2000
NO_FOCUS = (
    "no field received the text (the page itself got the key presses). Click the field first"
    " (computer left_click, or act_on), or set its value with form_input."
)
"""``type`` presses one key per character, each waiting for the page to take it (4-7 ms here,
far more on a page with heavy key handlers): more than this could outlast the caller's 60 s and
then the tab, which stays quarantined while the rest is unknown. Longer text goes in parts, or
whole through ``form_input``."""
FAR_PX = 100_000
"""CSS pixels from the viewport past which a point is no page's (and would not even travel)."""
MOUSE = "Input.dispatchMouseEvent"
KEY = "Input.dispatchKeyEvent"

Step = tuple[str, dict[str, Any], float, bool]
"""One input event: CDP method, params, pause before it (seconds), checkpoint before it."""
RUN_STEPS = 64
"""Input events sent as one request before the next checkpoint (32 typed characters)."""
MAX_RUN_STEPS = 256
"""The most commands the extension takes in one ``cdp_sequence``."""

# Read-only probe: the window's scroll offset and that of the nearest scrollable ancestor of
# the element at a viewport point (the thing a wheel over that point would move).
SCROLL_PROBE = """(() => {
  const pick = (x, y) => {
    let el = document.elementFromPoint(x, y);
    while (el && el !== document.body && el !== document.documentElement) {
      const s = getComputedStyle(el);
      const can = /(auto|scroll|overlay)/.test(s.overflowY + s.overflowX);
      if (can && (el.scrollHeight > el.clientHeight || el.scrollWidth > el.clientWidth)) return el;
      el = el.parentElement;
    }
    return null;
  };
  const el = pick(%(x)s, %(y)s);
  const out = {wx: scrollX, wy: scrollY, ex: el ? el.scrollLeft : 0, ey: el ? el.scrollTop : 0};
  if (%(scroll)s) {
    (el || window).scrollBy({left: %(dx)s, top: %(dy)s, behavior: "instant"});
  }
  return out;
})()"""


class ComputerTool:
    """The ``computer`` tool; keeps each tab's screenshot context for coordinate mapping."""

    def __init__(
        self, channel: PageChannel, contexts: ContextBook, images: ImageStore | None = None
    ) -> None:
        self._channel = channel
        self._contexts = contexts
        self._images = images
        """Where screenshots are kept for upload_image (None: they are not kept)."""
        self._actions: dict[str, Callable[[ToolCall, int], Awaitable[ToolResult]]] = {
            "left_click": self._click,
            "right_click": self._click,
            "double_click": self._click,
            "triple_click": self._click,
            "hover": self._hover,
            "type": self._type,
            "key": self._key,
            "screenshot": self._screenshot,
            "zoom": self._zoom,
            "scroll": self._scroll,
            "scroll_to": self._scroll_to,
            "left_click_drag": self._drag,
            "wait": self._wait,
        }
        self._handler = guarded(self._run, on_dialog=_dialog_outcome)

    async def __call__(self, call: ToolCall) -> ToolResult:
        return await self._handler(call)

    async def _run(self, call: ToolCall, tab: int) -> ToolResult:
        action = str(call.arguments.get("action", ""))
        run = self._actions.get(action)
        if run is None:
            raise ToolInputError(f'Unknown computer action "{action}".')
        try:
            return await run(call, tab)
        except OtherSiteRefused as refused:
            return ToolResult.text(str(refused), kind="denied")
        except RefUnreachable as refused:
            return refused.result

    # --- shared steps -------------------------------------------------------------------------

    async def _observe(self, call: ToolCall, tab: int, **args: Any) -> dict[str, Any] | None:
        """One best-effort page observation (None where the content script cannot run)."""
        try:
            value = await self._channel.content(
                call, tab, "observe", args, OBSERVE_TIMEOUT, read=True
            )
        except BrowserFailure:
            return None
        return value if isinstance(value, dict) else None

    async def _finish(
        self,
        call: ToolCall,
        tab: int,
        summary: str,
        before: dict[str, Any] | None,
        *,
        assurance: str,
        target: dict[str, Any] | None,
        near: bool = False,
        typed: str | None = None,
        press_watch: Any = None,
    ) -> ToolResult:
        """The receipt once the page settled. With ``near``, each observation also lists the
        interactive elements shown around the target, so that what the action revealed (a menu
        shown by CSS alone) is named. With ``typed``, a field that does not hold what was typed
        afterwards (cut at its limit, rewritten) says what it holds. With ``press_watch`` (the
        token of the watch the observation before armed on the target of a click or a drag), a
        press that went down or came up on something else than the target makes the call an
        error that names it: the target did not take the action."""
        ref = target.get("ref") if near and isinstance(target, dict) else None
        where: dict[str, Any] = {"ref": ref, "near": True} if isinstance(ref, str) else {}
        if isinstance(press_watch, str) and press_watch:
            where["press"] = press_watch
        try:
            after = await observe_settled(lambda: self._observe(call, tab, **where))
        except PageDialog as stop:
            stop.stage, stop.summary = "after", summary
            raise
        receipt = None
        if after is not None:
            action = str(call.arguments["action"])
            receipt = build_receipt(action, tab, before, after, assurance=assurance, target=target)
            if typed is not None:
                summary += _field_kept(after.get("focused"), typed)
            if "pressedInstead" in receipt["observedAfter"]:
                instead = receipt["observedAfter"]["pressedInstead"]
                lead = _pressed_elsewhere(call, summary, released=bool(instead.get("release")))
                missed = receipt_result(lead, receipt, call.context.workspace_id)
                return ToolResult(
                    kind="tool_error", content=missed.content, structured=missed.structured
                )
        elif await self._page_unresponsive(call, tab):
            return ToolResult.text(f"{summary} {UNANSWERED_AFTER}", kind="outcome_unknown")
        return receipt_result(summary, receipt, call.context.workspace_id)

    async def _page_unresponsive(self, call: ToolCall, tab: int) -> bool:
        """Whether a page that gave no observation after an action is one that does not
        answer at all (a script of its own holds it), rather than one no content script can
        enter (an error page, a pdf): then nothing tells whether it took the input."""
        try:
            await self._channel.content(call, tab, "ping", {}, PING_TIMEOUT, read=True)
        except BrowserError as failure:
            return failure.code in BUSY_CODES
        except BrowserFailure:
            return False
        return False

    async def _target_point(
        self, call: ToolCall, tab: int, *, watch_press: dict[str, Any] | None = None
    ) -> tuple[float, float, dict[str, Any] | None, dict[str, Any] | None, str]:
        """Where to act: (css x, css y, target element, observation before, assurance).
        ``watch_press`` ({presses, releases}): the page also watches where the action's presses
        land on the target (the ref's element, or what is at the point), and the observation
        names that watch (``pressWatch``)."""
        ref = call.arguments.get("ref")
        if isinstance(ref, str) and ref:
            return await self._ref_point(call, tab, ref, watch_press)
        x, y = self._model_point(call, tab, "coordinate")
        watch = {"watchPress": watch_press} if watch_press is not None else {}
        before = await self._observe(call, tab, x=x, y=y, near=True, **watch)
        viewport = before.get("viewport") if before else None
        if isinstance(viewport, dict) and not _inside(x, y, viewport):
            given = call.arguments["coordinate"]
            raise ToolInputError(
                f"coordinate ({_n(given[0])}, {_n(given[1])}) is outside the visible page"
                f" (viewport {_n(viewport.get('width'))}x{_n(viewport.get('height'))} CSS px,"
                f" the point maps to ({_n(x)}, {_n(y)})); nothing was sent. Take a screenshot"
                " and pick a point inside it, or use a ref from read_page or find."
            )
        _refuse_other_site(call, before, "frameAt")
        if before is not None and before.get("pointInFrame"):
            await refuse_frames_at(self._channel, call, tab, x, y)
        target = before.get("target") if before else None
        return x, y, target, before, "coordinate"

    async def _ref_point(
        self, call: ToolCall, tab: int, ref: str, watch_press: dict[str, Any] | None = None
    ) -> tuple[float, float, dict[str, Any] | None, dict[str, Any] | None, str]:
        """The ref's centre once a click there reaches it: out of view (below the fold, or
        scrolled away inside a scroll container) it is scrolled to the middle first, and what
        the point would hit is checked, as act_on does. A point that would reach something else
        (a sticky header, a banner, the container it is clipped by) is refused, no input sent."""
        before = await self._channel.observe_ref(
            call, tab, ref, OBSERVE_TIMEOUT, near=True, watch_press=watch_press
        )
        in_view = bool(before["target"].get("inViewport"))
        hit = await self._channel.reach_ref(call, tab, ref, in_view=in_view)
        if not hit.get("hit"):
            raise RefUnreachable(_unreachable(call, ref, hit, before))
        target = hit["target"]
        x, y = float(target["x"]), float(target["y"])
        if str(target.get("tag", "")).upper() in FRAME_TAGS:
            await refuse_frames_at(self._channel, call, tab, x, y)
        return x, y, target, before, "ref"

    def _model_point(self, call: ToolCall, tab: int, key: str) -> tuple[float, float]:
        point = call.arguments.get(key)
        if not isinstance(point, list | tuple) or len(point) != 2:
            need = (
                "coordinate or ref is required." if key == "coordinate" else f"{key} is required."
            )
            raise ToolInputError(need)
        x, y = self._contexts.to_css(tab, float(point[0]), float(point[1]))
        if not all(math.isfinite(v) and abs(v) <= FAR_PX for v in (x, y)):
            raise ToolInputError(
                f"{key} ({_n(point[0])}, {_n(point[1])}) is far outside any page; nothing was"
                " sent. Take a screenshot and pick a point inside it."
            )
        return x, y

    async def _send(
        self,
        call: ToolCall,
        tab: int,
        steps: list[Step],
        *,
        summary: str,
        started: bool = False,
        final: bool = True,
        done: Mapping[int, str] | None = None,
    ) -> None:
        """Send input events in order. A dialog that opens stops the rest; the ``PageDialog``
        records whether anything of the action went out (``started``: earlier events did) and
        whether its last event was delivered (``final``: these are the action's last events).
        ``done`` maps a step's index to what has taken effect once it is sent, for a call
        stopped part way to report.

        Events go out in runs (``_runs``), each one request, so typing costs a round trip per
        run, not per key. A cancel stops the action only between runs, at a checkpoint step (or
        before anything went out): the rest of a press goes out shielded, since a key or button
        left down would stay down in the page."""
        for first, end in _runs(steps):
            _, _, pause, checkpoint = steps[first]
            if pause:
                await trio.sleep(pause)
            if checkpoint:
                await call.effects.checkpoint()
            continuing = not checkpoint and (started or first > 0)
            try:
                with trio.CancelScope(shield=continuing):
                    if end - first == 1:
                        await self._channel.cdp(call, tab, steps[first][0], steps[first][1])
                    else:
                        run = [(method, params) for method, params, _, _ in steps[first:end]]
                        await self._channel.cdp_sequence(call, tab, run)
            except PageDialog as stop:
                index = first + stop.completed  # the event the dialog met
                _note_done(call, done, index)
                went_out = started or index > 0 or stop.delivered
                stop.stage = "during" if went_out else "before"
                stop.complete = final and stop.delivered and index == len(steps) - 1
                stop.summary = summary
                raise
            except BrowserError as error:
                if error.completed is not None:
                    _note_done(call, done, first + error.completed)
                raise
            _note_done(call, done, end)

    async def _refuse_focused_frames(
        self, call: ToolCall, tab: int, before: dict[str, Any] | None
    ) -> None:
        """Typing and keys go where the keyboard focus is: into an embedded frame, they reach
        that frame's site (named by the browser, not by the frame's ``src``)."""
        _refuse_other_site(call, before, "focusFrame")
        if before is not None and before.get("focusInFrame"):
            focused = before.get("focused")
            point = (
                (float(focused["x"]), float(focused["y"]))
                if isinstance(focused, dict) and _is_number(focused.get("x")) and _is_number(focused.get("y"))
                else None
            )
            await refuse_frames_focused(self._channel, call, tab, point)

    def _label(self, call: ToolCall, x: float, y: float) -> str:
        given = call.arguments.get("coordinate")
        if call.arguments.get("ref"):
            return f"{call.arguments['ref']} ({_n(x)}, {_n(y)})"
        if isinstance(given, list | tuple) and len(given) == 2:
            return f"({_n(given[0])}, {_n(given[1])})"
        return f"({_n(x)}, {_n(y)})"

    # --- actions ------------------------------------------------------------------------------

    async def _click(self, call: ToolCall, tab: int) -> ToolResult:
        action = str(call.arguments["action"])
        button, count = CLICKS[action]
        bits = modifier_bits(call.arguments.get("modifiers"))
        # Where each press goes down and comes up is watched on the target: one that lands on
        # something else (an overlay shown at that instant) is not said to have clicked it.
        watch = {"presses": count, "releases": True}
        x, y, target, before, assurance = await self._target_point(call, tab, watch_press=watch)
        steps = [_mouse_step("mouseMoved", x, y, modifiers=bits)]
        if assurance == "ref":
            x, y, target = await self._under_pointer(call, tab, x, y, bits)
            steps = []
        for click in range(1, count + 1):
            pressed: dict[str, Any] = {"button": button, "clickCount": click, "modifiers": bits}
            gap = CLICK_GAP if click > 1 else 0.0
            steps.append(
                _mouse_step("mousePressed", x, y, pause=gap, buttons=BUTTON_BITS[button], **pressed)
            )
            steps.append(_mouse_step("mouseReleased", x, y, buttons=0, **pressed))
        summary = f"{action} at {self._label(call, x, y)}."
        await self._send(call, tab, steps, summary=summary)
        return await self._finish(
            call, tab, summary, before, assurance=assurance, target=target, near=True,
            press_watch=before.get("pressWatch") if before else None,
        )  # fmt: skip

    async def _under_pointer(
        self, call: ToolCall, tab: int, x: float, y: float, bits: int
    ) -> tuple[float, float, dict[str, Any]]:
        """Bring the pointer onto a ref's element as a person would, and look again before
        pressing: an element that moves when hovered (a "catch me" button, a menu that shifts)
        or is still sliding into place is followed to where it now is (``POINTER_FOLLOWS``
        times at most), and a click that would still miss it is refused with only the pointer
        moved. The point to press, and the element it reaches."""
        ref = str(call.arguments["ref"])
        moving = False
        for _ in range(1 + POINTER_FOLLOWS):
            await self._send(call, tab, [_mouse_step("mouseMoved", x, y, modifiers=bits)],
                             summary=f"The pointer moved to {ref}.", final=False)  # fmt: skip
            try:
                hit = await self._channel.reach_ref(call, tab, ref, in_view=True)
            except BrowserError as changed:
                if changed.code not in ("stale_ref", "ref_not_found"):
                    raise
                break  # it changed into something else, or went, as the pointer came
            target = hit["target"]
            if not hit.get("hit"):
                moving = bool(hit.get("moving"))
                break
            if _holds(target.get("box"), x, y):
                return x, y, target  # still under the pointer, if not at its centre
            x, y = float(target.get("x", x)), float(target.get("y", y))
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

    async def _hover(self, call: ToolCall, tab: int) -> ToolResult:
        x, y, target, before, assurance = await self._target_point(call, tab)
        summary = f"Hovered at {self._label(call, x, y)}."
        await self._send(call, tab, [_mouse_step("mouseMoved", x, y)], summary=summary)
        return await self._finish(
            call, tab, summary, before, assurance=assurance, target=target, near=True
        )

    async def _type(self, call: ToolCall, tab: int) -> ToolResult:
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
        before = await self._observe(call, tab)
        await self._refuse_focused_frames(call, tab, before)
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
        await self._send(call, tab, steps, summary=summary, done=done)
        target = before.get("focused") if before else None
        assurance = "semantic" if target else "none"
        if before is None or target or before.get("editableDocument"):
            return await self._finish(
                call, tab, summary, before, assurance=assurance, target=target, typed=text
            )
        # Nothing had keyboard focus: the key presses went to the page itself, and text goes
        # into no field. Unless the page reacted to them, the call did not do what was asked.
        summary = f"{summary[:-1]}, but nothing on the page had keyboard focus: {NO_FOCUS}"
        result = await self._finish(call, tab, summary, before, assurance=assurance, target=None)
        receipt = (result.structured or {}).get("interactionReceipt")
        if receipt is not None and not page_reacted(receipt["observedAfter"]):
            return ToolResult(kind="tool_error", content=result.content, structured=result.structured)
        return result  # the page reacted, or could not be seen settling: not said to be a failure

    async def _key(self, call: ToolCall, tab: int) -> ToolResult:
        text = call.arguments.get("text")
        if not isinstance(text, str) or not text.strip():
            raise ToolInputError("text is required for key, e.g. Enter or ctrl+a.")
        _refuse_aim(call)
        combos = parse_keys(text)
        repeat = int(call.arguments.get("repeat") or 1)
        if not 1 <= repeat <= 100:
            raise ToolInputError("repeat must be between 1 and 100.")
        before = await self._observe(call, tab)
        await self._refuse_focused_frames(call, tab, before)
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
        await self._send(call, tab, steps, summary=summary)
        return await self._finish(call, tab, summary, before, assurance="none", target=None)

    async def _drag(self, call: ToolCall, tab: int) -> ToolResult:
        sx, sy = self._model_point(call, tab, "start_coordinate")
        ex, ey = self._model_point(call, tab, "coordinate")
        bits = modifier_bits(call.arguments.get("modifiers"))
        # Where the press goes down is watched (not where it comes up: elsewhere, by design).
        watch = {"presses": 1, "releases": False}
        before = await self._observe(call, tab, x=sx, y=sy, watchPress=watch)
        _refuse_other_site(call, before, "frameAt")
        start = call.arguments["start_coordinate"]
        end = call.arguments["coordinate"]
        viewport = before.get("viewport") if before else None
        if isinstance(viewport, dict) and not (_inside(sx, sy, viewport) and _inside(ex, ey, viewport)):
            raise ToolInputError(
                f"A drag from ({_n(start[0])}, {_n(start[1])}) to ({_n(end[0])}, {_n(end[1])})"
                f" leaves the visible page (viewport {_n(viewport.get('width'))}x"
                f"{_n(viewport.get('height'))} CSS px); nothing was sent. Take a screenshot and"
                " pick both points inside it."
            )
        if before is not None and before.get("pointInFrame"):
            await refuse_frames_at(self._channel, call, tab, sx, sy)
        if before is not None:  # a page that answers nothing (busy) answers no hit test either
            await refuse_frames_at(self._channel, call, tab, ex, ey)  # where it is dropped
        summary = f"Dragged ({_n(start[0])}, {_n(start[1])}) -> ({_n(end[0])}, {_n(end[1])})."
        press: dict[str, Any] = {"button": "left", "clickCount": 1, "modifiers": bits}
        grab = [
            _mouse_step("mouseMoved", sx, sy, modifiers=bits),
            _mouse_step("mousePressed", sx, sy, buttons=1, **press),
        ]
        await self._send(call, tab, grab, summary=summary, final=False)
        moves = []
        for step in range(1, DRAG_STEPS + 1):
            px = sx + (ex - sx) * step / DRAG_STEPS
            py = sy + (ey - sy) * step / DRAG_STEPS
            moves.append(
                _mouse_step(
                    "mouseMoved",
                    px,
                    py,
                    pause=DRAG_STEP_GAP,
                    button="left",
                    buttons=1,
                    modifiers=bits,
                )
            )
        release = _mouse_step("mouseReleased", ex, ey, buttons=0, **press)
        paused = False
        try:
            await self._send(call, tab, moves, summary=summary, started=True, final=False)
        except PageDialog:
            paused = True  # the page is paused: a release would be refused, so none is sent
            raise
        finally:
            # The button always comes up, so the page is never left mid-drag.
            if not paused:
                with trio.CancelScope(shield=True):
                    await self._send(call, tab, [release], summary=summary, started=True)
        target = before.get("target") if before else None
        return await self._finish(
            call, tab, summary, before, assurance="coordinate", target=target,
            press_watch=before.get("pressWatch") if before else None,
        )  # fmt: skip

    async def _scroll_to(self, call: ToolCall, tab: int) -> ToolResult:
        ref = call.arguments.get("ref")
        if not isinstance(ref, str) or not ref:
            point = call.arguments.get("coordinate")
            if not isinstance(point, list | tuple) or len(point) != 2:
                raise ToolInputError("ref is required for scroll_to.")
            # A document position, taken as given (not a screenshot point).
            expression = f"window.scrollTo({float(point[0])}, {float(point[1])})"
            await self._channel.cdp(call, tab, "Runtime.evaluate", {"expression": expression})
            self._contexts.invalidate([tab])
            return ToolResult.text("Scrolled to target.", structured={})
        before = await self._observe(call, tab)
        target = await self._channel.content(call, tab, "scroll_into_view", {"ref": ref})
        return await self._finish(
            call, tab, "Scrolled to target.", before, assurance="ref", target=target
        )

    async def _wait(self, call: ToolCall, tab: int) -> ToolResult:
        raw = call.arguments.get("duration")
        seconds = WAIT_DEFAULT if raw is None else float(raw)
        seconds = min(max(0.0, seconds), WAIT_MAX)
        deadline = trio.current_time() + seconds
        while (left := deadline - trio.current_time()) > 0:
            await trio.sleep(min(WAIT_SLICE, left))
            await call.effects.checkpoint()
        return ToolResult.text(f"Waited {_n(seconds)}s.", structured={})

    async def _screenshot(self, call: ToolCall, tab: int) -> ToolResult:
        shot = await capture(self._channel, call, tab)
        self._contexts.put(tab, shot.context)
        return self._image_result(call, "Screenshot captured (jpeg).", shot)

    async def _zoom(self, call: ToolCall, tab: int) -> ToolResult:
        region = call.arguments.get("region")
        if not isinstance(region, list | tuple) or len(region) != 4:
            raise ToolInputError("region [x0, y0, x1, y1] is required for zoom.")
        context = self._contexts.get(tab)
        if context is None:
            view = await probe(self._channel, call, tab)
            context = full_view(view.width, view.height, (round(view.width), round(view.height)))
        css = context.region_to_css(*(float(v) for v in region))
        if css is None:
            raise ToolInputError(
                "The zoom region is empty or outside the viewport; take a screenshot and pick"
                " a region inside it."
            )
        shot = await capture(self._channel, call, tab, css)
        self._contexts.put(tab, shot.context)
        x, y, w, h = css
        summary = (
            f"Zoomed into region ({', '.join(_n(v) for v in region)}) = CSS"
            f" ({_n(x)}, {_n(y)}) {_n(w)}x{_n(h)}; coordinates in this image map back into it."
        )
        if shot.whole_view:
            summary = (
                "The tab is in the background and Chrome only drew its whole viewport, so this"
                " image is the whole viewport, not the zoom region; coordinates in this image"
                " map to the whole viewport."
            )
        return self._image_result(call, summary, shot)

    async def _scroll(self, call: ToolCall, tab: int) -> ToolResult:
        direction = call.arguments.get("scroll_direction") or "down"
        if direction not in ("up", "down", "left", "right"):
            raise ToolInputError("scroll_direction must be up, down, left or right.")
        ticks = int(call.arguments.get("scroll_amount") or 3)
        distance = max(1, min(10, ticks)) * WHEEL_TICK
        dx = {"left": -distance, "right": distance}.get(direction, 0)
        dy = {"up": -distance, "down": distance}.get(direction, 0)
        if isinstance(call.arguments.get("coordinate"), list | tuple):
            x, y = self._model_point(call, tab, "coordinate")
        else:
            view = await probe(self._channel, call, tab)
            x, y = view.width / 2, view.height / 2
        await refuse_frames_at(self._channel, call, tab, x, y)  # the wheel goes to what is there
        before = await self._scroll_probe(call, tab, x, y)
        wheel = _mouse_step("mouseWheel", x, y, deltaX=dx, deltaY=dy)
        done = f"Scrolled {direction} {distance // WHEEL_TICK} tick(s)."
        await self._send(call, tab, [wheel], summary=done)
        try:
            moved = await self._scroll_moved(call, tab, x, y, before)
            note = ""
            if not moved:
                await self._scroll_probe(call, tab, x, y, dx=dx, dy=dy)
                moved = await self._scroll_moved(call, tab, x, y, before, settle=0.1)
                note = (
                    " The wheel did not move the page; scrolled it directly."
                    if moved
                    else " Nothing scrolled: the page or element may already be at its end."
                )
            shot = await capture(self._channel, call, tab)
        except PageDialog as stop:
            stop.stage, stop.summary = "after", done
            raise
        self._contexts.put(tab, shot.context)
        return self._image_result(call, f"{done}{note}", shot)

    async def _scroll_probe(
        self, call: ToolCall, tab: int, x: float, y: float, *, dx: float = 0, dy: float = 0
    ) -> dict[str, float]:
        scroll = "true" if dx or dy else "false"
        expression = SCROLL_PROBE % {"x": x, "y": y, "dx": dx, "dy": dy, "scroll": scroll}
        value = await self._channel.evaluate(call, tab, expression)
        return value if isinstance(value, dict) else {}

    async def _scroll_moved(
        self,
        call: ToolCall,
        tab: int,
        x: float,
        y: float,
        before: dict[str, float],
        settle: float = SCROLL_SETTLE,
    ) -> bool:
        deadline = trio.current_time() + settle
        while True:
            now = await self._scroll_probe(call, tab, x, y)
            shift = max(
                (
                    abs(float(now.get(k, 0)) - float(before.get(k, 0)))
                    for k in ("wx", "wy", "ex", "ey")
                ),
                default=0.0,
            )
            if shift > MOVED_PX or trio.current_time() >= deadline:
                return shift > MOVED_PX
            await trio.sleep(0.05)

    def _image_result(self, call: ToolCall, summary: str, shot: Capture) -> ToolResult:
        origin = origin_of(shot.viewport.url)
        size = f"{shot.context.shot_width}x{shot.context.shot_height}"
        content: list[ContentBlock] = [
            TextBlock(text=f"{summary} Image {size} px."),
            ImageBlock(data=shot.data, mime_type="image/jpeg"),
        ]
        structured: dict[str, Any] = {"provenance": provenance(call.context.workspace_id, origin)}
        if self._images is not None:
            image_id = self._images.put(call.context.workspace_id, shot.data, "image/jpeg")
            content.append(
                TextBlock(
                    text=f"[imageId: {image_id}] Reference this id with upload_image to put this"
                    " image into a page (a file input or a drop target)."
                )
            )
            structured["imageId"] = image_id
        return ToolResult(kind="ok", content=content, structured=structured)


def _runs(steps: list[Step]) -> Iterator[tuple[int, int]]:
    """Runs of steps sent as one request, as ``(first, end)``: a run ends before a step with a
    pause (waited out here) and, once it holds ``RUN_STEPS`` steps, before the next checkpoint
    step, so a cancel is seen every ``RUN_STEPS`` events or so."""
    first = 0
    for index in range(1, len(steps) + 1):
        if (
            index == len(steps)
            or steps[index][2] > 0
            or (steps[index][3] and index - first >= RUN_STEPS)
            or index - first >= MAX_RUN_STEPS
        ):
            yield first, index
            first = index


def _note_done(call: ToolCall, done: Mapping[int, str] | None, sent: int) -> None:
    """Report the furthest point of ``done`` reached once the first ``sent`` steps went out."""
    if done is None:
        return
    reached = [index for index in done if index < sent]
    if reached:
        call.effects.done_so_far(done[max(reached)])


def _mouse_step(kind: str, x: float, y: float, *, pause: float = 0.0, **extra: Any) -> Step:
    return (MOUSE, {"type": kind, "x": x, "y": y, **extra}, pause, False)


def _dialog_outcome(call: ToolCall, tab: int, stop: PageDialog) -> ToolResult:
    """What the action did before a JavaScript dialog stopped it, and that the dialog is open."""
    action = str(call.arguments.get("action", ""))
    name = dialog_name(stop.dialog)
    where = f"on tab {tab}"
    if stop.stage == "before":
        if stop.delivered:
            lead = f"{action} was not done: {name} opened {where} before it started."
        else:
            lead = f"{action} was not done: {name} is open {where}; nothing was sent."
        return dialog_result(call, tab, lead, stop.dialog, ok=False)
    if stop.stage == "after":
        lead = f"{stop.summary} Then {name} opened {where} and is still open."
    elif stop.complete:
        lead = (
            f"{stop.summary} The input was delivered and {name} opened {where}; it is still open."
        )
    else:
        lead = (
            f"{stop.summary.rstrip('.')} was cut short: {name} opened {where} before the input"
            " finished, so the rest of it was not sent."
        )
    return dialog_result(call, tab, lead, stop.dialog)


def _n(value: Any) -> str:
    """A number as short text: integers without a decimal point, huge ones in exponent form."""
    number = float(value)
    if not math.isfinite(number) or abs(number) >= 1e9:
        return f"{number:g}"
    if number.is_integer():
        return str(int(number))
    return f"{number:.1f}"


def _inside(x: float, y: float, viewport: dict[str, Any]) -> bool:
    """Whether a CSS point lies in the page's viewport (unknown sizes count as inside)."""
    width, height = viewport.get("width"), viewport.get("height")
    if not isinstance(width, int | float) or not isinstance(height, int | float):
        return True
    return 0 <= x < width and 0 <= y < height


FRAME_TAGS = frozenset({"IFRAME", "FRAME", "OBJECT", "EMBED"})
"""Elements that hold a document of their own: input on them goes into it."""
POINTER_FOLLOWS = 5
"""Times a click by ref follows its element to where it went once the pointer arrived (it
jumped aside, or it is still sliding into place as the page lays itself out)."""
EDGE_PX = 1.0
"""How far inside an element's box the pointer must be to count as on it."""


def _holds(box: Any, x: float, y: float) -> bool:
    """Whether the point lies inside ``box`` ({x, y, width, height}, CSS px), off its edge."""
    if not isinstance(box, dict):
        return False
    left, top = float(box.get("x", 0)), float(box.get("y", 0))
    right, bottom = left + float(box.get("width", 0)), top + float(box.get("height", 0))
    return left + EDGE_PX <= x <= right - EDGE_PX and top + EDGE_PX <= y <= bottom - EDGE_PX


class RefUnreachable(Exception):
    """A pointer action by ref whose point would not reach the ref's element; ``result`` says
    why and what to do."""

    def __init__(self, result: ToolResult) -> None:
        super().__init__(_said(result))
        self.result = result


VALUE_SHOWN = 200
"""Characters of a field's value the page's element description carries (then cut with …)."""


def _field_kept(focused: Any, typed: str) -> str:
    """What a field holds after typing, when that is not what was typed: the page cut it at
    its limit, or rewrote it (lower case, no symbols). A field that hides its value (a
    password) says nothing."""
    if not isinstance(focused, dict) or not isinstance(focused.get("value"), str):
        return ""
    held = focused["value"]
    if typed in held or "\n" in typed or "\t" in typed:  # a key like Enter moves on
        return ""
    if len(held) >= VALUE_SHOWN and held.endswith("\u2026"):  # only its start was read
        return ""
    shown = json.dumps(excerpt(held, VALUE_SHOWN), ensure_ascii=False)
    return (
        f" The field now holds {shown}: not all of what was typed (the page limits or rewrites"
        " what it takes)."
    )


def _unreachable(
    call: ToolCall, ref: str, hit: dict[str, Any], before: dict[str, Any]
) -> ToolResult:
    """Why a pointer action by ref was refused, with no input sent, and what to do instead."""
    action = str(call.arguments.get("action", ""))
    pointer = "a click" if action in CLICKS else "the pointer"
    target = hit["target"]
    point = f"({_n(target.get('x', 0))}, {_n(target.get('y', 0))})"
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


def _pressed_elsewhere(call: ToolCall, summary: str, *, released: bool) -> str:
    """The lead of a click or drag whose press the page saw go down (``released``: come up)
    on another element than its target."""
    action = str(call.arguments.get("action", ""))
    ref = call.arguments.get("ref")
    drag = action == "left_click_drag"
    if isinstance(ref, str) and ref:
        aimed = ref
    else:
        aimed = "what was at the start point" if drag else "what was at that point"
    what = "drag" if drag else "click"
    lead = RELEASED_ELSEWHERE if released else PRESSED_ELSEWHERE
    return lead.format(summary=summary, aimed=aimed, what=what, then=PRESSED_THEN)


def _said(result: ToolResult) -> str:
    return " ".join(getattr(block, "text", "") for block in result.content)


def _refuse_other_site(call: ToolCall, before: dict[str, Any] | None, key: str) -> None:
    """Before sending input: where it lands (``frameAt``) or where typing goes (``focusFrame``)
    may be an embedded frame of another site, which the page's own host does not answer for."""
    frame = before.get(key) if before else None
    if isinstance(frame, str) and frame:
        denied = call.effects.denied_at(frame)
        if denied is not None:
            raise OtherSiteRefused(denied)


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


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
