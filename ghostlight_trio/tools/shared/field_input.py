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

from ...engine.contracts import ToolCall
from .channel import PageChannel
from .field_values import as_sent
from .keys import key_events, lookup


async def set_value(
    channel: PageChannel, call: ToolCall, tab: int, ref: str, value: Any, done: Any = None
) -> Any:
    """The page's ``form_input`` answer for ``ref`` set to ``value`` (read back); ``done``: its
    first answer, when the request was already made (``observed_content``)."""
    if done is None:
        done = await channel.content(call, tab, "form_input", {"ref": ref, "value": value})
    if not (isinstance(done, dict) and done.get("awaitingText")):
        return done
    text = as_sent(value)
    if text:
        await channel.cdp(call, tab, "Input.insertText", {"text": text})
    else:
        delete = [("Input.dispatchKeyEvent", event) for event in key_events(lookup("Delete"), 0)]
        await channel.cdp_sequence(call, tab, delete)
    return await channel.content(call, tab, "edited_value", {"ref": ref}, read=True)
