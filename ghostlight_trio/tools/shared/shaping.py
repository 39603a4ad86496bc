"""Pure shaping of page answers into what agents read: element lines, redaction, tree diffs."""

from __future__ import annotations

import json
import re
from typing import Any

ELEMENT_KEYS = (
    "ref",
    "role",
    "name",
    "visible",
    "enabled",
    "checked",
    "selected",
    "value",
    "href",
    "box",
    "renderSerial",
    "frameOrigin",
    "mechanicalActions",
    "matchRank",
    "x",
    "y",
)
"""The actionable-element shape of the catalog, in its declaration order."""
FIELD_ROLES = {"textbox", "searchbox", "spinbutton", "combobox", "slider"}
TOGGLE_ROLES = {"checkbox", "radio", "switch", "menuitemcheckbox", "menuitemradio"}
REDACTED = "[value redacted]"
_SECRET = re.compile(r'secret_value="((?:[^"\\]|\\.)*)"')
_REF = re.compile(r"\[(ref_\d+)\]")


def mechanical_actions(element: dict[str, Any]) -> list[str]:
    """What the low-level tools can do to this element."""
    if element.get("enabled") is False:
        return ["scroll_to"]
    role = str(element.get("role", ""))
    tag = str(element.get("tag", ""))
    actions = ["click", "hover", "scroll_to"]
    if role in FIELD_ROLES or tag in ("input", "textarea") and role not in TOGGLE_ROLES:
        actions += ["type", "set_value"]
    elif role in TOGGLE_ROLES or tag == "select":
        actions.append("set_value")
    return actions


def actionable(element: dict[str, Any]) -> dict[str, Any]:
    """An extension element description in the catalog's actionable-element shape."""
    shaped: dict[str, Any] = {"mechanicalActions": mechanical_actions(element)}
    shaped.update({k: element[k] for k in ELEMENT_KEYS if k in element})
    shaped.setdefault("name", "")
    shaped.setdefault("role", str(element.get("tag", "")))
    return {k: shaped[k] for k in ELEMENT_KEYS if k in shaped}


def element_line(element: dict[str, Any], shown_text: object = None) -> str:
    """``[ref_N] role "name" at (x, y); visible, enabled[, checked]; actions: ...``. An
    element without a name is told by the start of its text instead (``shown_text``, from
    the page's description of it): ``[ref_N] paragraph (no name; text "…") at ...``."""
    states = [
        "visible" if element.get("visible") else "hidden",
        "enabled" if element.get("enabled", True) else "disabled",
    ]
    if "checked" in element:
        states.append("checked" if element["checked"] else "not checked")
    if "selected" in element:
        states.append("selected" if element["selected"] else "not selected")
    name = json.dumps(str(element.get("name", "")), ensure_ascii=False)
    if name == '""' and isinstance(shown_text, str) and shown_text:
        name = f"(no name; text {json.dumps(shown_text, ensure_ascii=False)})"
    actions = ", ".join(element.get("mechanicalActions") or mechanical_actions(element))
    return (
        f"[{element['ref']}] {element.get('role', '')} {name} at"
        f" ({_num(element.get('x'))}, {_num(element.get('y'))}); {', '.join(states)};"
        f" actions: {actions}"
    )


def _num(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def redact_secrets(text: str, *, redact: bool = True) -> str:
    """Turn ``secret_value="..."`` into ``value="[value redacted]"`` (or the value, if allowed)."""
    if redact:
        return _SECRET.sub(f'value="{REDACTED}"', text)
    return _SECRET.sub(lambda m: f'value="{m.group(1)}"', text)


def tree_diff(previous: str, current: str) -> str:
    """Changes between two read_page trees: ``~`` changed, ``-`` removed, ``+`` added lines.

    Lines are matched by their ref; lines without one (options, footers) by their text.
    """
    old = _keyed(previous)
    new = _keyed(current)
    out: list[str] = []
    for key, line in new.items():
        if key not in old:
            out.append(f"+ {line.strip()}")
        elif old[key] != line:
            out.append(f"~ {line.strip()}")
    out += [f"- {line.strip()}" for key, line in old.items() if key not in new]
    return "\n".join(out) if out else "(no changes since your last read)"


def _keyed(tree: str) -> dict[str, str]:
    keyed: dict[str, str] = {}
    for line in tree.splitlines():
        if line.startswith("Viewport: ") or not line.strip():
            continue
        match = _REF.search(line)
        key = match.group(1) if match else f"text:{line.strip()}"
        keyed.setdefault(key, line)
    return keyed


def clip_text(text: str, limit: int, what: str = "characters") -> str:
    """``text`` cut at ``limit`` with a note saying how much was left out."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}\n[Truncated: showing the first {limit} of {len(text)} {what}.]"
