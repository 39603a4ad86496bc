"""Tab ids rewritten at the browser shore: composite toward agents, native toward the extension.

The codec itself is ``workspace.tab_ids``. The rewrite is key-based (``tabId``-style keys) plus
a narrow prose rewrite for extension-authored notes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from ..workspace.tab_ids import SLOT_FACTOR, compose_tab_id, split_tab_id

TAB_ID_KEYS = frozenset({"tabId", "openerTabId", "activeTabId"})
TAB_ID_LIST_KEYS = frozenset({"tabIds", "ownedTabIds", "closed"})
PROSE_KEYS = frozenset({"note"})
"""Result keys holding extension-authored prose that may name tab ids (never page text)."""

_PROSE_TAB = re.compile(
    r"(?i)(\btabs?(?: with)?(?: given)?(?: ?ids?)?(?::| =|=)? ?)(\d+(?:, ?\d+)*)"
)
"""Chrome's and the extension's phrasings naming tab ids: ``tab 5``, ``tabs 1, 2``,
``No tab with id: 5``, ``No tab with given id 5`` (chrome.debugger), ``the tab with id: 5``,
``tabId 5``, ``Valid tab IDs: 1, 2``."""


class ForeignTabError(ValueError):
    """A composite id names another browser slot than the one the request goes to."""


def to_native(value: Any, slot: int) -> Any:
    """Copy ``value`` with every composite tab id of ``slot`` turned native.

    A scalar id of another slot raises ``ForeignTabError``; list members of other slots are
    dropped (they belong to another browser and mean nothing to this one).
    """

    def made_native(key: str, item: Any) -> Any:
        if key in TAB_ID_KEYS and _is_id(item):
            item_slot, native = split_tab_id(item)
            if item_slot != slot:
                raise ForeignTabError(f"tab {item} does not belong to browser {slot}")
            return native
        if key in TAB_ID_LIST_KEYS and isinstance(item, list):
            ids = [split_tab_id(i) for i in item if _is_id(i)]
            return [native for item_slot, native in ids if item_slot == slot]
        return _WALK_ON

    return _rewrite_keys(value, made_native)


def to_composite(value: Any, slot: int) -> Any:
    """Copy ``value`` with every native tab id (and prose/JSON mentions) made composite."""

    def made_composite(key: str, item: Any) -> Any:
        if key in TAB_ID_KEYS and _is_id(item):
            return _compose_native(item, slot)
        if key in TAB_ID_LIST_KEYS and isinstance(item, list):
            return [_compose_native(i, slot) if _is_id(i) else i for i in item]
        if key in PROSE_KEYS and isinstance(item, str):
            return rewrite_text(item, slot)
        return _WALK_ON

    return _rewrite_keys(value, made_composite)


_WALK_ON = object()
"""Returned by a key rewrite that leaves the item to the walk (it rewrites what is inside)."""


def _rewrite_keys(value: Any, rewrite: Callable[[str, Any], Any]) -> Any:
    """Copy ``value``, each dict item replaced by ``rewrite(key, item)`` unless it says
    ``_WALK_ON``."""
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            new = rewrite(key, item)
            out[key] = _rewrite_keys(item, rewrite) if new is _WALK_ON else new
        return out
    if isinstance(value, list):
        return [_rewrite_keys(item, rewrite) for item in value]
    return value


def rewrite_text(text: str, slot: int) -> str:
    """Make tab ids inside extension prose composite.

    A text that is a JSON object or array is rewritten structurally and re-serialised compactly;
    otherwise phrases like ``tab 5`` or ``Valid tab IDs: 1, 2`` are rewritten.
    """
    stripped = text.strip()
    if stripped[:1] in ("{", "["):
        try:
            parsed = json.loads(stripped)
            return json.dumps(to_composite(parsed, slot), ensure_ascii=False, separators=(",", ":"))
        except (ValueError, RecursionError):  # not JSON, or nested past what is followed: prose
            pass

    def _replace(match: re.Match[str]) -> str:
        ids = re.sub(r"\d+", lambda m: _compose_text(m.group(0), slot), match.group(2))
        return match.group(1) + ids

    return _PROSE_TAB.sub(_replace, text)


def _compose_text(digits: str, slot: int) -> str:
    return str(_compose_native(int(digits), slot))


def _compose_native(native: int, slot: int) -> int:
    """Compose a native id; negative sentinels (e.g. -1 "none") pass through unchanged."""
    return compose_tab_id(slot, native) if 0 <= native < SLOT_FACTOR else native


def _is_id(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
