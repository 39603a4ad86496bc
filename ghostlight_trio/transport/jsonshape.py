"""How big a parsed JSON value is, told without recursion and without walking all of it.

Values arrive from clients and pages that may nest them thousands of levels deep or hold
millions of items; a reader asks whether one is past its bounds before it does real work."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def exceeds(value: Any, *, max_depth: int | None = None, max_values: int | None = None) -> bool:
    """True when ``value`` nests containers deeper than ``max_depth`` levels, or holds more than
    ``max_values`` values (strings, numbers, lists and objects, nested ones included). Stops as
    soon as either bound is passed."""
    count = 0
    pending: list[tuple[Any, int]] = [(value, 1)]
    while pending:
        item, depth = pending.pop()
        count += 1
        if isinstance(item, Mapping):
            children: Any = item.values()
        elif isinstance(item, list | tuple):
            children = item
        else:
            continue
        if max_values is not None and count + len(pending) + len(children) > max_values:
            return True
        for child in children:
            if max_depth is not None and depth >= max_depth and isinstance(child, list | dict):
                return True
            pending.append((child, depth + 1))
    return max_values is not None and count > max_values
