"""What a computer action answers: the interaction receipt once the page settled (or why none
could be taken), an image with its id, and what a JavaScript dialog that stopped it left done."""

from __future__ import annotations

import json
from typing import Any

from ...browser.errors import BrowserError, BrowserFailure
from ...browser.failures import BUSY_CODES
from ...engine.contracts import ToolCall, ToolResult
from ...transport.bridge import ContentBlock, ImageBlock, TextBlock
from ...untrusted.excerpt import excerpt
from ..shared.capture import Capture
from ..shared.dialogs import PageDialog, dialog_name, dialog_result
from ..shared.provenance import origin_of, provenance
from ..shared.receipts import build_receipt, observe_settled, receipt_result
from .parts import ComputerParts

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
VALUE_SHOWN = 200
"""Characters of a field's value the page's element description carries (then cut with …)."""


async def finish(
    parts: ComputerParts,
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
    settled: dict[str, Any] | None = None,
) -> ToolResult:
    """The receipt once the page settled. With ``near``, each observation also lists the
    interactive elements shown around the target, so that what the action revealed (a menu
    shown by CSS alone) is named. With ``typed``, a field that does not hold what was typed
    afterwards (cut at its limit, rewritten) says what it holds. With ``press_watch`` (the
    token of the watch the observation before armed on the target of a click or a drag), a
    press that went down or came up on something else than the target makes the call an
    error that names it: the target did not take the action. ``settled``: the page's answer
    the action's last input request brought (``send`` with ``settle``)."""
    where = settle_args(target, near=near, press_watch=press_watch)
    try:
        after = await observe_settled(parts.channel, call, tab, where, settled=settled)
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
    elif await _page_unresponsive(parts, call, tab):
        return ToolResult.text(f"{summary} {UNANSWERED_AFTER}", kind="outcome_unknown")
    return receipt_result(summary, receipt, call.context.workspace_id)


def settle_args(
    target: dict[str, Any] | None, *, near: bool = False, press_watch: Any = None
) -> dict[str, Any]:
    """What the observation after an action names: the target by ref with what is shown
    around it (``near``), and the press watch whose landing it reads."""
    ref = target.get("ref") if near and isinstance(target, dict) else None
    where: dict[str, Any] = {"ref": ref, "near": True} if isinstance(ref, str) else {}
    if isinstance(press_watch, str) and press_watch:
        where["press"] = press_watch
    return where


async def _page_unresponsive(parts: ComputerParts, call: ToolCall, tab: int) -> bool:
    """Whether a page that gave no observation after an action is one that does not
    answer at all (a script of its own holds it), rather than one no content script can
    enter (an error page, a pdf): then nothing tells whether it took the input."""
    try:
        await parts.channel.content(call, tab, "ping", {}, PING_TIMEOUT, read=True)
    except BrowserError as failure:
        return failure.code in BUSY_CODES
    except BrowserFailure:
        return False
    return False


def image_result(parts: ComputerParts, call: ToolCall, summary: str, shot: Capture) -> ToolResult:
    origin = origin_of(shot.viewport.url)
    size = f"{shot.context.shot_width}x{shot.context.shot_height}"
    content: list[ContentBlock] = [
        TextBlock(text=f"{summary} Image {size} px."),
        ImageBlock(data=shot.data, mime_type="image/jpeg"),
    ]
    structured: dict[str, Any] = {"provenance": provenance(call.context.workspace_id, origin)}
    if parts.images is not None:
        image_id = parts.images.put(call.context.workspace_id, shot.data, "image/jpeg")
        content.append(
            TextBlock(
                text=f"[imageId: {image_id}] Reference this id with upload_image to put this"
                " image into a page (a file input or a drop target)."
            )
        )
        structured["imageId"] = image_id
    return ToolResult(kind="ok", content=content, structured=structured)


def dialog_outcome(call: ToolCall, tab: int, stop: PageDialog) -> ToolResult:
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
    elif stop.complete and stop.held:
        lead = (
            f"{stop.summary} {name[0].upper()}{name[1:]} opened {where} as the page took the"
            " input; it is still open, and the key's release reaches the page once it is"
            " answered."
        )
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
