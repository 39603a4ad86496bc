"""``form_fill``: fill several fields of one form by what they are called, optionally submit.

The form where the keys match best (``matching.py``) is filled, each field through
``form_input``'s own setter (the page sees the same events as from a person), and ``submit``
clicks that form's own submit control with a real mouse click. A watch the page arms on the
form before the click says what followed it (``submission``): a new document, the browser
sending the form, the page's script cancelling that, or no submit event at all.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

import attrs

from ...browser.errors import BrowserError
from ...engine.contracts import ToolCall, ToolHandler, ToolResult
from ...untrusted.excerpt import excerpt
from ..shared.channel import PageChannel
from ..shared.dialogs import PageDialog
from ..shared.field_input import set_value
from ..shared.field_values import OVER_LIMIT_NOTE, changed, refused_value
from ..shared.guard import ToolInputError
from ..shared.provenance import origin_of, page_facts, provenance, wrap_page_text
from ..shared.receipts import receipt_facts
from .matching import Control, Match, best_plan, pick_submit, words

SKIP_CODES = frozenset(
    {"disabled", "read_only", "no_such_option", "disabled_option", "bad_value", "radio_uncheck",
     "unsupported_control", "not_a_control", "stale_ref", "value_kept"}
)  # fmt: skip
"""Page refusals that skip one field and let the others go on."""
MASK = "********"
SHOWN_CHARS = 200
"""Characters of a filled value echoed back: the agent knows what it sent."""
MAX_FIELDS = 100
"""Keys one call may give. Matching costs keys x controls, and it runs on the service's loop."""


@attrs.frozen
class FormFill:
    """The handler; ``click`` is the computer tool (a submit is a real mouse click)."""

    _channel: PageChannel
    _click: ToolHandler

    async def __call__(self, call: ToolCall, tab: int) -> ToolResult:
        started = time.monotonic()
        values: Mapping[str, Any] = call.arguments.get("fields") or {}
        if not values:
            raise ToolInputError("fields must name at least one field and its value.")
        if len(values) > MAX_FIELDS:
            raise ToolInputError(
                f"fields names {len(values)} fields; at most {MAX_FIELDS} go in one call (no"
                " form has more worth filling at once). Nothing was filled."
            )
        page = await self._channel.content(call, tab, "form_fields", {}, read=True)  # nothing sent yet
        forms = page.get("forms", []) if isinstance(page, dict) else []
        plan = best_plan(forms, list(values))
        if plan is None:
            raise ToolInputError(
                f"Tab {tab} shows no fillable form controls; nothing was filled. Check the page"
                " with read_page (filter interactive)."
            )
        filled: list[dict[str, Any]] = []
        skipped: list[dict[str, Any]] = []
        for match in plan.matches:
            await call.effects.checkpoint()
            entry = await self._fill(call, tab, match, values[match.key])
            (filled if "reason" not in entry else skipped).append(entry)
            shown = ", ".join(item["label"] for item in filled[-5:])
            call.effects.done_so_far(f"filled {len(filled)} of {len(values)} fields ({shown})")
        form = forms[plan.form]
        sent = Submission()
        if call.arguments.get("submit"):
            sent = await self._submit(call, tab, form, filled)
        receipt = sent.receipt
        url = str(page.get("url", ""))
        origin = origin_of(url)
        ws = call.context.workspace_id
        structured: dict[str, Any] = {
            "filled": filled,
            "unmatched": list(plan.unmatched),
            "skipped": skipped,
            "submitted": sent.submitted,
            "duration_ms": round((time.monotonic() - started) * 1000, 1),
            "page": page_facts(tab, url, str(page.get("title", "")), page.get("renderSerial")),
            "provenance": provenance(ws, origin),
        }
        if receipt is not None:
            # The page the tab shows once the form is sent, and where it is heading: the
            # answer speaks for that page, not the one the fields were filled on.
            structured["page"] = receipt["page"]
            structured["interactionReceipt"] = receipt
        if sent.ref:
            structured["submit_ref"] = sent.ref
        if sent.how:
            structured["submission"] = sent.how
        if sent.observation:
            structured["observation"] = sent.observation
        head = f"Filled {len(filled)}/{len(values)} fields."
        if call.arguments.get("submit"):
            head += f" submitted: {'true' if sent.submitted else 'false'}."
        if sent.how:
            head += f" {SUBMISSIONS[sent.how]}"
        text = f"{head}\n" + wrap_page_text(_details(structured), ws, origin)
        if sent.kind in ("outcome_unknown", "cancelled"):
            # The submit click went out and its fate is not known: neither submitted nor not.
            text += "\nWhether the form was submitted is not known: see after submit above."
            return ToolResult.text(text, kind="outcome_unknown", structured=structured)
        return ToolResult.text(text, kind="ok" if filled else "tool_error", structured=structured)

    async def _fill(self, call: ToolCall, tab: int, match: Match, value: Any) -> dict[str, Any]:
        control = match.control
        entry: dict[str, Any] = {"label": control.label, "ref": control.ref, "type": control.kind}
        ref, wanted = control.ref, value
        if control.kind == "radio" and control.options:
            option = _radio_option(control, value)
            if option is None:
                listed = ", ".join(str(o.get("label") or o.get("value")) for o in control.options)
                return entry | {"reason": f"no option {excerpt(str(value))!r} (options: {listed})"}
            ref, wanted = str(option["ref"]), True
            entry["ref"] = ref
        elif control.kind == "file":
            return entry | {"reason": "a file input: form_fill does not set files"}
        elif not control.enabled:
            return entry | {"reason": "disabled or read-only"}
        try:
            done: Any = await set_value(self._channel, call, tab, ref, wanted)
        except BrowserError as refused:
            if refused.code not in SKIP_CODES:
                raise
            return entry | {"reason": refused.message}
        done = done if isinstance(done, dict) else {}
        if control.secret or done.get("secret"):
            entry["value"] = MASK
        elif control.options:
            entry["value"] = excerpt(str(value), SHOWN_CHARS)
        elif "value" in done:
            held = done.get("text", done["value"])
            if refused_value(done, value):
                return entry | {"reason": f"the {control.kind} field did not take"
                                f" {excerpt(str(value))!r}; it is empty"}  # fmt: skip
            entry["value"] = excerpt(str(held), SHOWN_CHARS) if isinstance(held, str) else held
            if isinstance(held, str) and changed(done, value):
                entry["asked"] = excerpt(str(value), SHOWN_CHARS)
        if done.get("invalid"):
            entry["invalid"] = str(done["invalid"])
        if done.get("overLimit"):
            entry["overLimit"] = str(done["overLimit"])
        return entry

    async def _submit(
        self, call: ToolCall, tab: int, form: Mapping[str, Any], filled: list[dict[str, Any]]
    ) -> Submission:
        """Clicks the form's submit control, if it is to be clicked, and says what followed."""
        if not filled:
            return Submission(observation="Not submitted: no field was filled.")
        choice = pick_submit(form.get("submits", []))
        if choice is None:
            return Submission(observation="Not submitted: the form has no submit control.")
        ref = str(choice["ref"])
        if choice.get("native"):
            checked = await self._channel.content(call, tab, "form_validity", {"ref": ref}, read=True)
            invalid = checked.get("invalid") if isinstance(checked, dict) else None
            if invalid:
                listed = "; ".join(f"{item.get('label') or item.get('ref')}: {item.get('message')}"
                                   for item in invalid)  # fmt: skip
                refused = f"Not submitted: the browser would refuse the form ({listed})."
                return Submission(ref=ref, observation=refused)
        watch = await self._watch_submit(call, tab, ref)
        await call.effects.checkpoint()
        arguments = {"action": "left_click", "ref": ref, "tabId": call.arguments["tabId"]}
        clicked = await self._click(ToolCall(call.context, arguments, call.effects))
        receipt = (clicked.structured or {}).get("interactionReceipt")
        if clicked.kind == "ok" and isinstance(receipt, dict):
            seen = await self._submit_seen(call, tab, watch)
            # The click's facts, not its text: that is fenced already, and this answer fences
            # its details once, as a whole. The click went out, so the form may have gone
            # with it: `submitted` stays true unless it certainly did not (see SUBMISSIONS).
            observation = f"clicked {ref}; then {receipt_facts(receipt)}"
            how = submission_of(receipt["observedAfter"], seen)
            return Submission(True, ref, observation, "ok", receipt, how)
        text = "\n".join(getattr(block, "text", "") for block in clicked.content)
        return Submission(clicked.kind == "ok", ref, text, clicked.kind)

    async def _watch_submit(self, call: ToolCall, tab: int, ref: str) -> str | None:
        """Arms the page's one-shot watch on the submit control's form; its token, or None
        when there is no form to watch (or the page could not arm it)."""
        try:
            armed = await self._channel.content(call, tab, "submit_watch", {"ref": ref}, read=True)
        except BrowserError:
            return None
        return str(armed["token"]) if isinstance(armed, dict) and armed.get("armed") else None

    async def _submit_seen(
        self, call: ToolCall, tab: int, token: str | None
    ) -> dict[str, Any] | None:
        """What the watch saw after the click; None when nothing was watched or it cannot be
        read (the page is between documents, or a dialog holds it)."""
        if token is None:
            return None
        try:
            seen = await self._channel.content(
                call, tab, "submit_seen", {"token": token}, read=True
            )
        except (BrowserError, PageDialog):
            return None
        return seen if isinstance(seen, dict) else None


@attrs.frozen
class Submission:
    """What a submit came to. ``submitted`` is false only when the form certainly did not go
    out (no click was made, or it failed); ``how`` says what was seen (``SUBMISSIONS``)."""

    submitted: bool = False
    ref: str | None = None
    observation: str | None = None
    kind: str = "ok"
    """The click's result kind ("ok" when no click was tried)."""
    receipt: dict[str, Any] | None = None
    how: str | None = None


SUBMISSIONS = {
    "navigated": "The page loaded a new document after the click: the form was sent.",
    "navigating": (
        "A navigation started with the click and has not loaded yet: the form was sent, and its"
        " answer has not come back (wait_for with state settled waits for it)."
    ),
    "sent": "The form's submit event went out and the page let the browser send the form.",
    "cancelled_by_page": (
        "The form's submit event went out, and the page's own script cancelled the browser's"
        " sending of it: that script either sends the form itself or its own check refused it."
        " What the page shows now (after submit, below) tells which: check it before"
        " submitting again."
    ),
    "no_submit_event": (
        "No submit event went out: the browser did not submit the form. The page's own script"
        " took the click (it may send the data itself, or its own check stopped it). What the"
        " page shows now (after submit, below) tells which: check it before submitting again."
    ),
    "not_seen": (
        "Whether the form's submit event went out could not be seen (the control belongs to no"
        " form, or the page could not be asked): the page may have sent the data. Check what it"
        " shows before submitting again."
    ),
}
"""What followed a submit click, as ``submission`` names it. None of these proves that nothing
was sent (a page's script may send the data itself whatever the browser did), so all of them
come with ``submitted: true``: a false "not sent" would invite a second submission."""


def submission_of(observed: Mapping[str, Any], seen: Mapping[str, Any] | None) -> str:
    """Which of ``SUBMISSIONS`` a click's receipt and the page's submit watch show."""
    if observed.get("newDocument"):
        return "navigated"
    if observed.get("navigationPending"):
        return "navigating"
    if seen is None or not seen.get("known"):
        return "not_seen"
    if not seen.get("submitEvent"):
        return "no_submit_event"
    return "cancelled_by_page" if seen.get("cancelled") else "sent"


def _details(structured: Mapping[str, Any]) -> str:
    lines = [_filled_line(item) for item in structured["filled"]]
    lines += [f"unmatched: {excerpt(item['key'])} ({_unmatched_why(item)})"
              for item in structured["unmatched"]]  # fmt: skip
    lines += [f"skipped: {item['label']}: {item['reason']}" for item in structured["skipped"]]
    if structured.get("observation"):
        lines.append(f"after submit: {structured['observation']}")
    return "\n".join(lines)


def _filled_line(item: Mapping[str, Any]) -> str:
    line = f"- {item['label']} ({item['ref']}, {item['type']}) = {item.get('value', '')!s}"
    if "asked" in item:
        line += f" (asked {item['asked']}; the field changed it)"
    if item.get("invalid"):
        line += f" (the browser would refuse it: {item['invalid']})"
    if item.get("overLimit"):
        line += f" ({OVER_LIMIT_NOTE.format(item['overLimit'])})"
    return line


def _unmatched_why(item: Mapping[str, Any]) -> str:
    if item["candidates"]:
        refs = item.get("refs") or [""] * len(item["candidates"])
        fits = ", ".join(f"{label} ({ref})" if ref else label
                         for label, ref in zip(item["candidates"], refs, strict=False))  # fmt: skip
        return f"several fit equally: {fits}; name one more exactly"
    if "taken_by" in item:
        return f"the field it fits is filled for key {excerpt(str(item['taken_by']))}"
    if "elsewhere" in item:
        return f"it fits {item['elsewhere']} in another form; fill that form in a call of its own"
    return "no field fits"


def _radio_option(control: Control, value: Any) -> Mapping[str, Any] | None:
    wanted = words(str(value))
    for exact in (True, False):
        for option in control.options:
            for text in (words(str(option.get("value", ""))), words(str(option.get("label", "")))):
                if text and (text == wanted if exact else text.startswith(wanted)):
                    return option
    return None
