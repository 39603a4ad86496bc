"""How a recorded step names its target so that a replay finds it again in another tab.

A ref or a coordinate means something only in the tab and moment it was read; a role and
accessible name, a label or visible text mean the same wherever the page is shown again. The
content script describes the element (``locator`` mechanism) right before the action, and the
strongest of these names is the one replayed; a short CSS path is only the last resort.
"""

from __future__ import annotations

from typing import Any

import attrs

NAMED_ROLES = frozenset(
    {"button", "link", "textbox", "searchbox", "checkbox", "radio", "combobox", "listbox",
     "menuitem", "menuitemcheckbox", "menuitemradio", "option", "tab", "switch", "slider",
     "spinbutton", "treeitem", "heading", "img", "cell", "row", "dialog"}
)  # fmt: skip
"""Roles a replay names an element by (with its accessible name): the ones ``getByRole`` and
``act_on`` both know."""
TEXT_MAX = 160
ELLIPSIS = "\u2026"


@attrs.frozen
class Locator:
    """An element as the page named it at the moment of the action (never its value)."""

    role: str = ""
    name: str = ""
    label: str = ""
    text: str = ""
    css: str = ""
    frames: tuple[str, ...] = ()
    tag: str = ""
    type: str = ""
    secret: bool = False
    """A password-like field: what is typed into it is never recorded."""
    checked: bool | None = None
    """A checkbox's or radio's state before the action."""

    @property
    def by(self) -> str:
        """The strongest name this locator has: ``role``, ``label``, ``text``, ``css`` or "".
        A password field has no role in the accessibility tree a replay reads: its label first."""
        if self.type == "password" and self.label:
            return "label"
        if self.role in NAMED_ROLES and self.name:
            return "role"
        if self.label:
            return "label"
        if self.text:
            return "text"
        return "css" if self.css else ""

    @property
    def toggle(self) -> bool:
        return self.type in ("checkbox", "radio") or self.role in ("checkbox", "switch", "radio")

    @property
    def choice(self) -> bool:
        return self.tag == "select"

    def target(self) -> dict[str, str] | None:
        """``act_on``'s target for this element, or None when it has no name act_on finds."""
        by = self.by
        if by == "role":
            return {"name": self.name, "role": self.role}
        if by == "label":
            return {"name": self.label}
        if by == "text":
            return {"query": self.shown_text[0]}
        return None

    @property
    def shown_text(self) -> tuple[str, bool]:
        """The visible text to find the element by, and whether it is all of it (a long text
        comes cut, ending in an ellipsis: then only its start is matched)."""
        cut = self.text.endswith(ELLIPSIS)
        return (self.text.removesuffix(ELLIPSIS).rstrip() if cut else self.text), not cut

    def facts(self) -> dict[str, Any]:
        """The locator as the export shows it: only what it has."""
        every = attrs.asdict(self)
        every["frames"] = list(self.frames)
        return {key: value for key, value in every.items() if value not in ("", (), [], None, False)}


def locator_of(described: Any) -> Locator | None:
    """The content script's description of an element as a Locator; None when it said nothing
    usable (no element there, or an answer of another shape)."""
    if not isinstance(described, dict):
        return None
    frames = described.get("frames")
    checked = described.get("checked")
    found = Locator(
        role=_text(described.get("role")),
        name=_text(described.get("name")),
        label=_text(described.get("label")),
        text=_text(described.get("text")),
        css=_text(described.get("css")),
        frames=tuple(_text(f) for f in frames) if isinstance(frames, list) else (),
        tag=_text(described.get("tag")).lower(),
        type=_text(described.get("type")).lower(),
        secret=described.get("secret") is True,
        checked=checked if isinstance(checked, bool) else None,
    )
    return found if found.by or found.secret else None


def _text(value: Any) -> str:
    return " ".join(value.split())[:TEXT_MAX] if isinstance(value, str) else ""
