"""A recording as steps of the ``script`` tool: replayed in any tab of the workspace with one
call, each target found again by act_on, which refuses a target it finds nowhere or more than
once (with candidates) instead of guessing.

Every string is data: a name the page chose that starts with ``$`` would read as a reference
to an earlier step's result, so it is written ``$$`` (the script's literal ``$``). A withheld
value is the placeholder ``{{secret:NAME}}``, to be replaced before the replay.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .steps import CLICKS, RecordedStep, replayed

SCRIPT_STEPS = 20
"""The most steps one script call takes: a longer recording is replayed in parts."""
ACT_ON_CLICKS = {button: action for action, button in CLICKS.items() if button != "triple"}


def placeholder(name: str) -> str:
    return "{{secret:" + name + "}}"


def script_of(steps: Sequence[RecordedStep]) -> tuple[list[dict[str, Any]], list[str]]:
    """The script's steps, and what could not be made one (each said once)."""
    out: list[dict[str, Any]] = []
    warnings: list[str] = []
    for number, step in enumerate(replayed(steps), 1):
        made = _step(step)
        if isinstance(made, str):
            warnings.append(f"step {number} ({step.kind}) left out: {made}")
        else:
            out.append({"tool": made[0], "args": _literal(made[1])})
    return out, warnings


def secrets_of(steps: Sequence[RecordedStep]) -> list[str]:
    """The placeholders a replay needs values for, in first use order."""
    names = [step.secret for step in steps if step.secret]
    names += [secret for step in steps for _, _, secret in step.fields if secret]
    return list(dict.fromkeys(names))


def _step(step: RecordedStep) -> tuple[str, dict[str, Any]] | str:
    kind = step.kind
    if kind == "goto":
        return "navigate", {"url": step.value}
    if kind in ("back", "forward"):
        return "navigate", {"url": kind}
    if kind in ("reload", "close"):
        return "tab_control", {"action": kind}
    if kind == "dialog":
        answer: dict[str, Any] = {"action": step.button}
        return "dialog", answer | ({"text": step.value} if step.button == "respond" else {})
    if kind == "fill_form":
        fields = {label: placeholder(secret) if secret else value for label, value, secret in step.fields}
        return "form_fill", {"fields": fields} | ({"submit": True} if step.submit else {})
    if kind == "press":
        return "computer", {"action": "key", "text": step.value}
    if kind == "upload":
        return "file uploads are not replayed by a script (the files are not recorded)"
    target = step.locator.target() if step.locator is not None else None
    if target is None:
        return "its target had no role and name, label or text to be found by"
    if kind == "click":
        action = ACT_ON_CLICKS.get(step.button)
        if action is None:
            return f"a {step.button} click is not replayed by act_on"
        return "act_on", {"target": target, "action": action}
    if kind == "scroll_to":
        return "act_on", {"target": target, "action": "scroll_to"}
    if kind == "check":
        return "act_on", {"target": target, "action": "set_value", "value": str(step.checked).lower()}
    value = placeholder(step.secret) if step.secret else step.value
    return "act_on", {"target": target, "action": "set_value", "value": value}


def _literal(value: Any) -> Any:
    """``value`` with every string starting with ``$`` written as the script's literal."""
    if isinstance(value, dict):
        return {key: _literal(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_literal(item) for item in value]
    if isinstance(value, str) and value.startswith("$"):
        return "$" + value
    return value
