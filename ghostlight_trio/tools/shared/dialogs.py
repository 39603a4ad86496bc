"""JavaScript dialogs met by a page request, worded for the agent.

While a tab shows a dialog (alert, confirm, prompt, beforeunload) its page is paused. The
extension answers the request that was running when a dialog opened at once, with the dialog
(what the request sent was delivered), and refuses a request that needs the page while one is
open (code ``dialog_open``; nothing was sent). Both come back as a reply, so the tab is never left
uncertain; the tool stops its work and tells the agent to answer the dialog with ``dialog``.
The dialog's message is page text and is fenced as untrusted.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...browser.errors import BrowserError
from ...browser.wire import DIALOG_OPEN_CODE
from ...engine.contracts import ToolCall, ToolResult
from .provenance import origin_of, provenance, wrap_page_text


class PageDialog(Exception):
    """A JavaScript dialog stopped a page request.

    ``delivered``: the request had gone out before the dialog opened (else it was refused).
    Tools that send a sequence mark where it stopped: ``stage`` is ``before`` (none of the
    action's own effects went out), ``during`` or ``after``; ``complete`` says the action's last
    effect was delivered; ``summary`` is the action's own short description. ``completed``: for
    a command sequence, how many of its commands were answered before the dialog; ``sent``: how
    many went out (the one the dialog met, and any joined behind it, which the page takes once
    the dialog is answered).
    """

    def __init__(
        self, dialog: Mapping[str, Any], *, delivered: bool, completed: int = 0,
        sent: int | None = None,
    ) -> None:  # fmt: skip
        self.dialog = dict(dialog)
        self.delivered = delivered
        self.completed = completed
        self.sent = completed + int(delivered) if sent is None else max(sent, completed)
        self.stage = "before"
        self.complete = False
        self.summary = ""
        super().__init__(f"a JavaScript {self.kind} dialog is open")

    @property
    def held(self) -> int:
        """How many commands went out behind the one the dialog met (joined to it): the page
        takes them once the dialog is answered."""
        return max(0, self.sent - self.completed - 1)

    @property
    def kind(self) -> str:
        return dialog_kind(self.dialog)


def dialog_kind(dialog: Mapping[str, Any]) -> str:
    """The dialog's type (alert, confirm, prompt, beforeunload); alert when not given."""
    return str(dialog.get("type") or "alert")


def check_answer(answer: dict[str, Any]) -> dict[str, Any]:
    """The reply itself, unless a dialog answered it (then ``PageDialog``)."""
    dialog = answer.get("dialog")
    if isinstance(dialog, dict):
        raise PageDialog(dialog, delivered=True)
    return answer


def refusal(error: BrowserError) -> PageDialog | None:
    """The dialog behind a ``dialog_open`` refusal, if that is what ``error`` is."""
    if error.code != DIALOG_OPEN_CODE:
        return None
    return PageDialog(error.dialog or {"type": "alert"}, delivered=False)


def dialog_name(dialog: Mapping[str, Any]) -> str:
    kind = dialog_kind(dialog)
    if kind == "beforeunload":
        return "a beforeunload dialog (the page asks whether to leave it)"
    return f"a JavaScript {kind} dialog"


def next_step(tab: int, dialog: Mapping[str, Any]) -> str:
    """What the agent does about an open dialog, naming the ``dialog`` tool."""
    kind = dialog_kind(dialog)
    how = {
        "prompt": "action respond with text (the answer typed into the prompt), or dismiss",
        "confirm": "action accept (OK) or dismiss (Cancel)",
        "beforeunload": "action accept to leave the page, or dismiss to stay",
    }.get(kind, "action accept")
    if kind == "beforeunload":  # the page's answer to leaving: a navigation waits for it too
        after = " and other page actions on this tab, navigating included, are refused."
    else:
        after = " and other page actions on this tab are refused (navigating away closes it)."
    return (
        f"Next step: call dialog with tabId {tab} and {how}. Until it is answered the page is"
        f" paused{after}"
    )


def withheld_from(call: ToolCall, dialog: Mapping[str, Any]) -> str | None:
    """The host of the embedded frame that opened ``dialog`` (named by the browser: the frame's
    committed URL) when this workspace may not read that site's words; None when it may."""
    url = dialog.get("url")
    return call.effects.closed_at(url) if isinstance(url, str) and url else None


def withheld_text(host: str) -> str:
    return (
        f"(Its words are withheld: the dialog was opened by an embedded frame of {host}, which"
        " this workspace may not read. Dismiss it, or ask the user.)"
    )


def dialog_result(
    call: ToolCall,
    tab: int,
    lead: str,
    dialog: Mapping[str, Any],
    *,
    ok: bool = True,
    structured: dict[str, Any] | None = None,
) -> ToolResult:
    """``lead``, the next step and the fenced dialog message, with the dialog structured."""
    ws = call.context.workspace_id
    origin = origin_of(str(dialog.get("url") or ""))
    kind = dialog_kind(dialog)
    closed = withheld_from(call, dialog)
    message = "" if closed else str(dialog.get("message") or "")
    info: dict[str, Any] = {"open": True, "type": kind, "message": message}
    if kind == "prompt":
        info["defaultPrompt"] = "" if closed else str(dialog.get("defaultPrompt") or "")
    text = f"{lead} {next_step(tab, dialog)}"
    if closed:
        info["withheld"] = closed
        text += f"\n{withheld_text(closed)}"
    if message:
        text += f"\nDialog message:\n{wrap_page_text(message, ws, origin)}"
    if kind == "prompt" and info["defaultPrompt"]:
        text += f"\nDefault answer:\n{wrap_page_text(info['defaultPrompt'], ws, origin)}"
    data = {**(structured or {}), "dialog": info, "provenance": provenance(ws, origin)}
    return ToolResult.text(text, kind="ok" if ok else "tool_error", structured=data)


def stopped_result(call: ToolCall, tab: int, what: str, stop: PageDialog) -> ToolResult:
    """A request a dialog kept from running (or cut short) where no effect was intended."""
    name = dialog_name(stop.dialog)
    if stop.delivered:
        lead = f"{what} was cut short: {name} opened on tab {tab} while it ran."
    else:
        lead = f"{what} did not run: {name} is open on tab {tab}; nothing was sent."
    return dialog_result(call, tab, lead, stop.dialog, ok=False)
