"""Setting a field's value through the page, with rich editors taken as input takes them.

A form control is set by the page itself (``form_input``). An editable region (a rich editor:
Lexical, Slate, ProseMirror) keeps its own model and takes text only through the beforeinput
events the browser's own input fires; text assigned to it shows but never reaches the model.
So the page only focuses and selects it, the text goes in as browser input (CDP
``Input.insertText``, or Delete for an empty value), and what the editor then shows is read
back once it had a turn.
"""

from __future__ import annotations

from typing import Any

from ...browser.errors import BrowserError
from ...engine.contracts import ToolCall
from .channel import Observed, PageChannel
from .dialogs import PageDialog
from .field_values import as_sent
from .keys import key_events, lookup


async def set_value(channel: PageChannel, call: ToolCall, tab: int, ref: str, value: Any) -> Any:
    """The page's ``form_input`` answer for ``ref`` set to ``value`` (read back)."""
    done = await channel.content(call, tab, "form_input", {"ref": ref, "value": value})
    return await _typed_in(channel, call, tab, ref, value, done)


async def set_value_observed(
    channel: PageChannel, call: ToolCall, tab: int, ref: str, value: Any, settle: dict[str, Any]
) -> tuple[Observed, dict[str, Any], dict[str, Any] | None]:
    """``set_value`` with the page observed just before it and, once the value is in, asked
    to come to rest (``settle``: what that observation names), in one request: the page
    before, the answer (a broken one, naming no field, fails as ``bad_answer``), and the
    settled answer (None when the page was not asked: an editor that took its text as browser
    input after it, or an extension that cannot ask at once)."""
    asked = {"ref": ref, "value": value}
    both = await channel.observed_content(call, tab, "form_input", asked, settle=settle)
    if both is None:  # an extension without ``observed``: the page is observed on its own
        try:
            before = await channel.content(call, tab, "observe", {}, read=True)
        except PageDialog as stop:
            stop.delivered = False  # met before anything of the value went out
            raise
        done, settled = await set_value(channel, call, tab, ref, value), None
    else:
        before, first, settled = both
        if isinstance(first, dict) and first.get("awaitingText"):
            settled = None  # the page came to rest before its text went in: asked again
        done = await _typed_in(channel, call, tab, ref, value, first)
    if not isinstance(done, dict):
        raise BrowserError(
            "The page's answer to form_input named no field", hop="page", code="bad_answer"
        )
    return before, done, settled


async def _typed_in(
    channel: PageChannel, call: ToolCall, tab: int, ref: str, value: Any, done: Any
) -> Any:
    """``done``, the page's answer; for an editable region that awaits its text, what it shows
    once the text went in as browser input."""
    if not (isinstance(done, dict) and done.get("awaitingText")):
        return done
    text = as_sent(value)
    if text:
        await channel.cdp(call, tab, "Input.insertText", {"text": text})
    else:
        delete = [("Input.dispatchKeyEvent", event) for event in key_events(lookup("Delete"), 0)]
        await channel.cdp_sequence(call, tab, delete)
    return await channel.content(call, tab, "edited_value", {"ref": ref}, read=True)
