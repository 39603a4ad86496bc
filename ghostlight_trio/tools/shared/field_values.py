"""What a field holds after a value was written into it, against what was asked: a field may
refuse a value (an impossible date, letters in a number: it is empty) or change it (a range
clamps it), and a tool must say so rather than report the value it sent."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

OVER_LIMIT_NOTE = (
    "The value is longer than the field allows ({}): a person could not have typed it all. The"
    " browser still sends the whole value on submit; the site may refuse or cut it."
)
"""Said of a value past a field's maxlength (only typing is held to that limit)."""

_READ_BACK = ("input", "textarea", "contenteditable")
"""Kinds of field whose text the page reports back after the write."""


def refused_value(done: Mapping[str, Any], value: Any) -> bool:
    """The field is empty after being given a non-empty value (a date it cannot read, letters
    in a number field, an editor that took nothing): nothing was filled."""
    return done.get("kind") in _READ_BACK and done.get("value") == "" and as_sent(value) != ""


def changed(done: Mapping[str, Any], value: Any) -> bool:
    """The field holds something else than it was given (clamped, trimmed, reformatted, an
    editor's own rewrite)."""
    return done.get("kind") in _READ_BACK and done.get("value") != as_sent(value)


def as_sent(value: Any) -> str:
    """``value`` as the page's String() writes it into a field."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)
