"""Composite public tab ids: ``slot * 2**32 + native``, so several browsers never collide.

2**32 covers Chrome's signed 32-bit native ids; slot 0 means "not encoded".
"""

from __future__ import annotations

SLOT_SHIFT = 32
_NATIVE_MASK = (1 << SLOT_SHIFT) - 1


def compose_tab_id(slot: int, native_tab: int) -> int:
    """The id agents see for ``native_tab`` in browser ``slot``."""
    if slot < 0 or not 0 <= native_tab <= _NATIVE_MASK:
        raise ValueError(f"cannot compose a tab id from slot {slot} and tab {native_tab}")
    return (slot << SLOT_SHIFT) | native_tab


def split_tab_id(composite: int) -> tuple[int, int]:
    """``(slot, native_tab)`` of a composite id."""
    if composite < 0:
        raise ValueError(f"tab id {composite} is negative")
    return composite >> SLOT_SHIFT, composite & _NATIVE_MASK
