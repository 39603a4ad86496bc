"""What one finished call leaves in a recording: a step in a small vocabulary of its own
(go to, click, fill, check, choose, press, scroll to, fill a form, answer a dialog, reload,
close, upload), or nothing for a read. Whatever was typed into a password-like field, or into a
field the page could not describe, is replaced by a named placeholder the replay asks for."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from .locator import Locator

CLICKS = {"left_click": "left", "right_click": "right", "double_click": "double",
          "triple_click": "triple"}  # fmt: skip
MASK = "********"
"""How form_fill shows a value it set in a secret field."""
TRUE_WORDS = frozenset({"true", "on", "yes", "checked", "1"})
FieldValue = str | bool | float


@attrs.frozen
class Shown:
    """What the page showed once the step was done: the replay's assertions."""

    url: str = ""
    title: str = ""
    role: str = ""
    """``heading`` or ``text``: how ``text`` is shown."""
    text: str = ""


@attrs.frozen
class RecordedStep:
    kind: str
    """goto, back, forward, click, fill, check, select, press, scroll_to, fill_form, dialog,
    reload, close or upload."""
    locator: Locator | None = None
    value: str = ""
    """The URL, typed text, chosen option, key, dialog answer or file names."""
    secret: str = ""
    """The placeholder's name when the value was withheld."""
    button: str = "left"
    checked: bool = True
    fields: tuple[tuple[str, FieldValue, str], ...] = ()
    """form_fill's (label, value, placeholder name) in the order given."""
    submit: bool = False
    after: Shown | None = None

    def summary(self) -> dict[str, Any]:
        """The step as status and export show it (no withheld value, ever)."""
        out: dict[str, Any] = {"kind": self.kind}
        if self.locator is not None:
            out["locator"] = self.locator.facts()
        if self.secret:
            out["secret"] = self.secret
        elif self.value:
            out["value"] = self.value
        if self.kind == "click" and self.button != "left":
            out["button"] = self.button
        if self.kind == "check":
            out["checked"] = self.checked
        if self.fields:
            out["fields"] = [label for label, _, _ in self.fields]
        return out


READS = {"computer": {"screenshot", "zoom", "wait", "hover", "left_click_drag"},
         "act_on": {"hover"}, "dialog": {"status"}, "tab_control": {"focus"}}  # fmt: skip
"""Actions of the recorded tools that leave no step: reads, and a drag (no replay names one)."""


def may_step(tool: str, arguments: Mapping[str, Any]) -> bool:
    """Whether a call could leave a step: only then is its target described."""
    return arguments.get("action") not in READS.get(tool, ())


def replayed(steps: Sequence[RecordedStep]) -> list[RecordedStep]:
    """The steps a replay takes: a plain click that only put the focus into a field, followed
    by typing into that same field, is left to the typing."""
    out = []
    for at, step in enumerate(steps):
        following = steps[at + 1] if at + 1 < len(steps) else None
        focusing = step.kind == "click" and step.button == "left" and step.locator is not None
        if focusing and following is not None and following.kind == "fill" and following.locator == step.locator:
            continue
        out.append(step)
    return out


def step_of(
    tool: str, arguments: Mapping[str, Any], locator: Locator | None, structured: Any
) -> RecordedStep | None:
    """The step a successful call of ``tool`` makes, or None when it changed nothing."""
    action = str(arguments.get("action", ""))
    if tool == "navigate":
        url = str(arguments.get("url", ""))
        return RecordedStep(url if url in ("back", "forward") else "goto", value=url)
    if tool == "computer":
        return _computer(action, arguments, locator)
    if tool == "form_input":
        return _set(locator, arguments.get("value"))
    if tool == "act_on":
        if action in CLICKS:
            return _click(CLICKS[action], locator)
        if action == "scroll_to" and locator is not None:
            return RecordedStep("scroll_to", locator)
        return _set(locator, arguments.get("value")) if action == "set_value" else None
    if tool == "form_fill":
        return _form(arguments, structured)
    if tool == "tab_control" and action in ("reload", "close"):
        return RecordedStep(action)
    if tool == "dialog" and action in ("accept", "dismiss", "respond"):
        return RecordedStep("dialog", value=str(arguments.get("text", "")), button=action)
    if tool in ("file_upload", "upload_image"):
        return RecordedStep("upload", locator, value=_file_names(tool, arguments))
    return None


def _computer(action: str, arguments: Mapping[str, Any], locator: Locator | None) -> RecordedStep | None:
    if action in CLICKS:
        return _click(CLICKS[action], locator)
    if action == "type":
        return _fill(locator, str(arguments.get("text", "")))
    if action == "key":
        return RecordedStep("press", locator, value=str(arguments.get("text", "")))
    if action == "scroll_to" and locator is not None:
        return RecordedStep("scroll_to", locator)
    if action == "scroll" and locator is not None and locator.by == "role":
        # A wheel turned over a named element; over a page's containers it is no step a
        # replay needs (act_on scrolls its target into view itself).
        return RecordedStep("scroll_to", locator)
    return None


def _click(button: str, locator: Locator | None) -> RecordedStep:
    if button == "left" and locator is not None and locator.toggle and locator.checked is not None:
        # A click on a checkbox is kept as the state it left, so a replay from any state ends
        # the same way.
        radio = "radio" in (locator.type, locator.role)  # a click never unchecks a radio
        return RecordedStep("check", locator, checked=radio or not locator.checked)
    return RecordedStep("click", locator, button=button)


def _set(locator: Locator | None, value: Any) -> RecordedStep:
    if locator is not None and locator.toggle:
        checked = value is True or str(value).strip().lower() in TRUE_WORDS
        return RecordedStep("check", locator, checked=checked)
    if locator is not None and locator.choice and not locator.secret:
        return RecordedStep("select", locator, value=str(value))
    return _fill(locator, "" if value is None else str(value))


def _fill(locator: Locator | None, text: str) -> RecordedStep:
    """Typed text, unless the field is secret or could not be described (then it might be)."""
    if locator is None or locator.secret:
        return RecordedStep("fill", locator, secret=secret_name(locator))
    return RecordedStep("fill", locator, value=text)


def _form(arguments: Mapping[str, Any], structured: Any) -> RecordedStep | None:
    """form_fill's fields as filled: a value is kept only where the answer shows the field
    took it in clear; a masked, unmatched or unreported one is withheld."""
    given = arguments.get("fields")
    if not isinstance(given, dict):
        return None
    filled = structured.get("filled", []) if isinstance(structured, dict) else []
    clear = {
        _folded(str(entry.get("label", "")))
        for entry in filled
        if isinstance(entry, dict) and entry.get("value") != MASK and "value" in entry
    }
    fields: list[tuple[str, FieldValue, str]] = []
    for label, value in given.items():
        kept = isinstance(value, str | bool | int | float) and _folded(str(label)) in clear
        if kept:
            fields.append((str(label), value, ""))
        else:
            fields.append((str(label), "", secret_name(Locator(label=str(label)))))
    return RecordedStep("fill_form", fields=tuple(fields), submit=arguments.get("submit") is True)


def _file_names(tool: str, arguments: Mapping[str, Any]) -> str:
    if tool == "upload_image":
        return str(arguments.get("filename") or "image.png")
    names = [str(f.get("name", "")) for f in arguments.get("files") or () if isinstance(f, dict)]
    names += [re.split(r"[\\/]", str(p))[-1] for p in arguments.get("paths") or ()]
    return ", ".join(name for name in names if name)


def secret_name(locator: Locator | None) -> str:
    """The placeholder's name: the field's words as an upper-case identifier."""
    words = "" if locator is None else locator.label or locator.name or locator.text
    name = re.sub(r"[^A-Za-z0-9]+", "_", words).strip("_").upper()[:40]
    return name or "SECRET"


def _folded(text: str) -> str:
    return " ".join(text.casefold().split())
