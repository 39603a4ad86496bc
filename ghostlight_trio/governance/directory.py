"""Which capabilities one call needs, read from the catalog's capability rows.

Absent means deny (an action the catalog does not classify is ``unknown_action`` under a
policy); empty means allow without looking at any host. A row is refined per call only as the
tool's catalog entry declares (``GovernanceFacts.refinements``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from ..catalog.registry import ToolSpec


@attrs.frozen(cache_hash=True)
class Requirement:
    """What one call needs. ``needs`` is None for an unclassified action."""

    tool: str
    action: str | None
    needs: frozenset[str] | None

    @property
    def label(self) -> str:
        """``computer (left_click)``: how denials and audit name the action."""
        return f"{self.tool} ({self.action})" if self.action else self.tool


def action_of(spec: ToolSpec, arguments: Mapping[str, Any]) -> str | None:
    """The row key a call selects, or None for single-variant tools."""
    key = spec.action_key
    if key is None:
        return None
    if key == "submit":
        return "submit" if arguments.get("submit") is True else None
    value = arguments.get(key)
    return value if isinstance(value, str) else repr(value)


_SHARED: dict[tuple[str, str | None, tuple[str, ...]], Requirement] = {}
"""Requirements that follow from the catalog row alone, made once: the gate looks decisions up
by requirement, and a shared one hashes in no time."""
_SHARED_LIMIT = 1024


def requirement(spec: ToolSpec, arguments: Mapping[str, Any]) -> Requirement:
    action = action_of(spec, arguments)
    row = spec.capabilities.get(action if action is not None else "*")
    name = spec.name
    if row is None:
        return Requirement(name, action, None)
    refined = spec.governance.needs(action, arguments, row)
    if refined is not None:
        return Requirement(name, action, refined)
    key = (name, action, tuple(row))
    shared = _SHARED.get(key)
    if shared is None:
        if len(_SHARED) >= _SHARED_LIMIT:  # actions are free text: keep the table bounded
            _SHARED.clear()
        shared = _SHARED[key] = Requirement(name, action, frozenset(row))
    return shared


def capability_rows(spec: ToolSpec) -> list[tuple[str | None, frozenset[str]]]:
    """Every variant of a tool with what it needs, in catalog order (for explain/advertising)."""
    return [
        (None if key == "*" else key, frozenset(needs)) for key, needs in spec.capabilities.items()
    ]
