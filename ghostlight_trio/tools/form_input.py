"""``form_input``: set one field's value by ref, as the page's own input would, and say what
the field then holds."""

from __future__ import annotations

import json

import attrs

from ..engine.contracts import ToolCall, ToolResult
from .shared.channel import PageChannel
from .shared.dialogs import PageDialog, dialog_name, dialog_result
from .shared.field_input import set_value_observed
from .shared.field_values import OVER_LIMIT_NOTE, changed, refused_value
from .shared.receipts import settled_receipt


@attrs.frozen
class FormInput:
    _channel: PageChannel

    async def __call__(self, call: ToolCall, tab: int) -> ToolResult:
        ref = str(call.arguments.get("ref", ""))
        value = call.arguments.get("value")
        try:
            # One request: the page as it was, the value set through the page's own script
            # (``scripted``), and the page at rest after it.
            before, done, settled = await set_value_observed(
                self._channel, call, tab, ref, value, {"ref": ref, "scripted": True}
            )
        except PageDialog as stop:
            if not stop.delivered:
                raise
            lead = (
                f"Set {ref}: the value was delivered and {dialog_name(stop.dialog)} opened on"
                f" tab {tab} while the page handled it; it is still open."
            )
            return dialog_result(call, tab, lead, stop.dialog)
        shown = "[value redacted]" if done.get("secret") else json.dumps(value, ensure_ascii=False)
        if refused_value(done, value):
            return ToolResult.error(
                f"{ref} did not take {shown}: the field cannot hold that value and is empty now"
                " (for example a date it cannot read, or letters in a number field)."
            )
        summary = f"Set {ref} = {shown}."
        if not done.get("secret") and changed(done, value):
            held = json.dumps(done.get("value"), ensure_ascii=False)
            summary = f"Set {ref} = {held} (asked {shown}; the field changed it)."
        if done.get("invalid"):
            summary += f" The browser would refuse this value on submit: {done['invalid']}."
        if done.get("overLimit"):
            summary += f" {OVER_LIMIT_NOTE.format(done['overLimit'])}"
        await call.effects.checkpoint()
        try:
            return await settled_receipt(
                "form_input",
                tab,
                summary,
                before,
                (self._channel, call, {"ref": ref}),
                assurance="ref",
                workspace_id=call.context.workspace_id,
                settled=settled,
            )
        except PageDialog as stop:
            lead = f"{summary} Then {dialog_name(stop.dialog)} opened on tab {tab}."
            return dialog_result(call, tab, lead, stop.dialog)
