"""Composite tab ids: ``slot * 2**32 + native``, so several browsers route without ambiguity.

Agents only ever see composite ids; the extension only ever sees native ones. The rewrite is
key-based (``tabId``-style keys) plus a narrow prose rewrite for extension-authored notes.
"""

from __future__ import annotations

import json
import re
from typing import Any

SLOT_FACTOR = 2**32
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


def compose(slot: int, native: int) -> int:
    """The agent-visible id of native tab ``native`` in browser ``slot``."""
    if slot < 1 or not 0 <= native < SLOT_FACTOR:
        raise ValueError(f"cannot compose tab id from slot {slot} and native id {native}")
    return slot * SLOT_FACTOR + native


def split(composite: int) -> tuple[int, int]:
    """``(slot, native)`` of a composite id; slot 0 means an un-encoded id."""
    return divmod(int(composite), SLOT_FACTOR)


def slot_for(composite: int) -> int:
    """The browser slot a composite id routes to."""
    return split(composite)[0]


def to_native(value: Any, slot: int) -> Any:
    """Copy ``value`` with every composite tab id of ``slot`` turned native.

    A scalar id of another slot raises ``ForeignTabError``; list members of other slots are
    dropped (they belong to another browser and mean nothing to this one).
    """
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if key in TAB_ID_KEYS and _is_id(item):
                item_slot, native = split(item)
                if item_slot != slot:
                    raise ForeignTabError(f"tab {item} does not belong to browser {slot}")
                out[key] = native
            elif key in TAB_ID_LIST_KEYS and isinstance(item, list):
                out[key] = [split(i)[1] for i in item if _is_id(i) and split(i)[0] == slot]
            else:
                out[key] = to_native(item, slot)
        return out
    if isinstance(value, list):
        return [to_native(item, slot) for item in value]
    return value


def to_composite(value: Any, slot: int) -> Any:
    """Copy ``value`` with every native tab id (and prose/JSON mentions) made composite."""
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if key in TAB_ID_KEYS and _is_id(item):
                out[key] = _compose_native(item, slot)
            elif key in TAB_ID_LIST_KEYS and isinstance(item, list):
                out[key] = [_compose_native(i, slot) if _is_id(i) else i for i in item]
            elif key in PROSE_KEYS and isinstance(item, str):
                out[key] = rewrite_text(item, slot)
            else:
                out[key] = to_composite(item, slot)
        return out
    if isinstance(value, list):
        return [to_composite(item, slot) for item in value]
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
    return compose(slot, native) if 0 <= native < SLOT_FACTOR else native


def _is_id(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
