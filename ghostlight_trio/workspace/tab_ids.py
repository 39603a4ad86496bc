"""Composite tab ids: ``slot * 2**32 + native``, so several browsers route without ambiguity.

Agents only ever see composite ids and workspaces own tabs by them; the extension only ever
sees native ones. 2**32 covers Chrome's signed 32-bit native ids. Browser slots count from 1,
so a composite id is never below 2**32: slot 0 means an id that was never encoded.
"""

from __future__ import annotations

from typing import TypeGuard

SLOT_FACTOR = 2**32


def compose_tab_id(slot: int, native: int) -> int:
    """The agent-visible id of native tab ``native`` in browser ``slot``."""
    if slot < 1 or not 0 <= native < SLOT_FACTOR:
        raise ValueError(f"cannot compose tab id from slot {slot} and native id {native}")
    return slot * SLOT_FACTOR + native


def split_tab_id(composite: int) -> tuple[int, int]:
    """``(slot, native)`` of a composite id. Slot 0 means an un-encoded id; a negative id
    splits into a negative slot, which no browser holds."""
    return divmod(int(composite), SLOT_FACTOR)


def slot_of(composite: int) -> int:
    """The browser slot a composite id routes to."""
    return split_tab_id(composite)[0]


def is_native_tab_id(value: object) -> TypeGuard[int]:
    """An integer (never a bool) in the range of Chrome's native tab ids."""
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < SLOT_FACTOR
