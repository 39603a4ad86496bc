"""``dialog``: read or answer the JavaScript dialog open on a tab, as the extension recorded it
from CDP ``Page.javascriptDialogOpening`` (wire op ``dialog``). The dialog's words are page
text, fenced as untrusted, and withheld when a frame of a site the workspace may not read
opened it."""

from __future__ import annotations

import json
from typing import Any

import attrs

from ..engine.contracts import ToolCall, ToolResult
from .shared.channel import PageChannel
from .shared.dialogs import withheld_from, withheld_text
from .shared.guard import ToolInputError
from .shared.provenance import provenance, wrap_page_text

DIALOG_ACTIONS = ("status", "accept", "dismiss", "respond")
DIALOG_BOUND = 15.0


@attrs.frozen
class Dialog:
    _channel: PageChannel

    async def __call__(self, call: ToolCall, tab: int) -> ToolResult:
        action = call.arguments.get("action")
        if action not in DIALOG_ACTIONS:
            raise ToolInputError('action must be "status", "accept", "dismiss" or "respond".')
        text = call.arguments.get("text")
        if action == "respond" and not isinstance(text, str):
            raise ToolInputError("respond needs text: the answer typed into the prompt.")
        if action != "respond" and text is not None:
            raise ToolInputError("text is only accepted with action respond.")
        ws = call.context.workspace_id
        args: dict[str, Any] = {"tabId": tab, "action": action}
        if action == "respond":
            args["text"] = text
        if action == "status":
            answer = await self._channel.read(call, "dialog", args, DIALOG_BOUND)
        else:
            answer = await self._channel.request(call, "dialog", args, DIALOG_BOUND)
        page = await self._channel.tab_page(call, tab)
        origin = page["origin"]
        answer = _withhold_closed_words(call, answer)
        if action == "status":
            text_out, structured = _dialog_status(answer, tab, ws, origin)
        else:
            text_out, structured = _dialog_answered(answer, str(action), text, tab)
            text_out += _next_dialog(answer, structured, tab, ws, origin)
        structured.update(page=page, provenance=provenance(ws, origin))
        return ToolResult.text(text_out, structured=structured)


def _withhold_closed_words(call: ToolCall, answer: dict[str, Any]) -> dict[str, Any]:
    """The extension's answer with the words of a dialog an embedded frame of a site this
    workspace may not read opened (the one open, answered, or opened next) replaced by a note."""
    answer = dict(answer)
    following = answer.get("next")
    if isinstance(following, dict):
        closed = withheld_from(call, following)
        if closed:
            answer["next"] = {**following, "message": withheld_text(closed), "withheld": closed}
    closed = withheld_from(call, answer)
    if closed:
        answer.update(message=withheld_text(closed), withheld=closed)
        if "defaultPrompt" in answer:
            answer["defaultPrompt"] = ""
    return answer


def _dialog_status(
    answer: dict[str, Any], tab: int, ws: Any, origin: str
) -> tuple[str, dict[str, Any]]:
    """The agent's text and structured facts for ``dialog`` action status."""
    if not answer.get("open"):
        return f"No JavaScript dialog is open on tab {tab}.", {"open": False}
    kind = answer.get("type")
    message = str(answer.get("message", ""))
    structured: dict[str, Any] = {"open": True, "type": str(kind), "message": message}
    if kind == "prompt":
        structured["defaultPrompt"] = str(answer.get("defaultPrompt", ""))
    head = (
        f"A JavaScript {kind} dialog is open on tab {tab}; answer it with dialog"
        f" {_how_to_answer(str(kind))}. Its message:"
    )
    return f"{head}\n{wrap_page_text(message, ws, origin)}", structured


def _dialog_answered(
    answer: dict[str, Any], action: str, text: Any, tab: int
) -> tuple[str, dict[str, Any]]:
    """The agent's text and structured facts for ``dialog`` accept, dismiss or respond."""
    resolved = bool(answer.get("resolved"))
    kind = answer.get("type")
    structured: dict[str, Any] = {
        "open": bool(answer.get("open")),
        "resolved": resolved,
        "action": action,
    }
    if kind is not None:
        structured["type"] = str(kind)
    if isinstance(answer.get("message"), str):
        structured["message"] = answer["message"]  # which dialog was answered
    if not resolved:
        return f"No JavaScript dialog was open on tab {tab}; nothing was answered.", structured
    verb = {"accept": "Accepted", "dismiss": "Dismissed", "respond": "Answered"}[action]
    what = f"the {kind} dialog" if kind else "the dialog"
    extra = f" with {json.dumps(text, ensure_ascii=False)}" if action == "respond" else ""
    text_out = f"{verb} {what} on tab {tab}{extra}."
    if kind == "beforeunload":
        text_out += (
            " The page is leaving: the navigation continues; wait_for with state"
            " settled waits for the next page."
            if action == "accept"
            else " The page stays; the navigation was cancelled."
        )
    return text_out, structured


def _next_dialog(
    answer: dict[str, Any], structured: dict[str, Any], tab: int, ws: Any, origin: str
) -> str:
    """What the page did at once after its dialog was answered, when it opened another one
    (alert after alert): the agent answers that one next, and is told so rather than finding
    its next call refused."""
    following = answer.get("next")
    if not isinstance(following, dict):
        return ""
    kind = str(following.get("type", "alert"))
    message = str(following.get("message", ""))
    structured["open"] = True
    structured["next"] = {"type": kind, "message": message}
    return (
        f"\nThe page opened another JavaScript {kind} dialog at once; answer it with dialog"
        f" {_how_to_answer(kind)}. Its message:\n{wrap_page_text(message, ws, origin)}"
    )


def _how_to_answer(kind: str) -> str:
    return {"prompt": "accept, dismiss, or respond with text", "alert": "accept"}.get(
        kind, "accept or dismiss"
    )
