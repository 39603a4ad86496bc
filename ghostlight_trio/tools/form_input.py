"""``form_input``: set one field's value by ref, as the page's own input would, and say what
the field then holds."""

from __future__ import annotations

import json
from typing import Any

import attrs

from ..engine.contracts import ToolCall, ToolResult
from .shared.channel import PageChannel
from .shared.dialogs import PageDialog, dialog_name, dialog_result
from .shared.field_input import set_value
from .shared.field_values import OVER_LIMIT_NOTE, changed, refused_value
from .shared.receipts import settled_receipt


@attrs.frozen
class FormInput:
    _channel: PageChannel

    async def __call__(self, call: ToolCall, tab: int) -> ToolResult:
        ref = str(call.arguments.get("ref", ""))
        value = call.arguments.get("value")
        before: Any = None
        first: Any = None
        settled: dict[str, Any] | None = None
        try:
            # One request: the page as it was, the value set, and the page at rest after it
            # (the value goes in through the page's own script: ``scripted``).
            asked = {"ref": ref, "value": value}
            both = await self._channel.observed_content(
                call, tab, "form_input", asked, settle={"ref": ref, "scripted": True}
            )
            if both is None:  # an extension without ``observed``
                before = await self._looked_at(call, tab)
            else:
                before, first, settled = both
            done = await set_value(self._channel, call, tab, ref, value, first)
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
                settled=settled
                if isinstance(first, dict) and not first.get("awaitingText")
                else None,
            )
        except PageDialog as stop:
            lead = f"{summary} Then {dialog_name(stop.dialog)} opened on tab {tab}."
            return dialog_result(call, tab, lead, stop.dialog)

    async def _looked_at(self, call: ToolCall, tab: int) -> Any:
        """The page observed on its own, before the value is set: a dialog met here was met
        before anything of the value went out."""
        try:
            return await self._channel.content(call, tab, "observe", {}, read=True)
        except PageDialog as stop:
            stop.delivered = False
            raise
