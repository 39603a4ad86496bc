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


MAX_SAFE_INTEGER = 2**53 - 1
"""The largest whole number a double holds exactly: what a browser's JSON keeps as it was."""
MAX_NESTING = 256
"""Deepest nesting of lists and objects taken, far past any real message: the MCP connector
reads no deeper line, the service takes no deeper call arguments. A JSON parser stops at a
depth that depends on how deep the stack already is, and the bridge's CBOR decoder at 400
levels (it would close the stream, and every call on it with it): one fixed limit under both
makes the answer to a line the same wherever it is read, and every line read fit to forward."""


def json_problem(value: Any, *, where: str, max_depth: int = MAX_NESTING) -> str | None:
    """None when ``value`` is JSON as a browser takes it: text, whole numbers within
    ±(2^53 − 1), finite numbers, true, false, null, and lists and objects (with text keys) of
    those, nested at most ``max_depth`` levels. Else what the first other value is and where,
    from ``where`` down, e.g. ``arguments.domains[0] is a byte string``.

    Values decoded from CBOR may be anything else: byte strings, NaN, numbers past 2^53, CBOR's
    ``undefined`` or simple values, stand-ins for tags, keys that are not text. Walked without
    recursion, and cheaply for what fits (no path is kept until something does not)."""
    if _fits(value, max_depth):
        return None
    return _first_misfit(value, where, max_depth)


def _fits(value: Any, max_depth: int) -> bool:
    kind = type(value)
    if kind is not dict and kind is not list:
        return _fits_scalar(value)
    pending: list[tuple[Any, int]] = [(value, 1)]
    while pending:
        container, depth = pending.pop()
        if depth > max_depth:
            return False
        if type(container) is dict:
            for key in container:
                if type(key) is not str:
                    return False
            children = container.values()
        else:
            children = container
        for child in children:
            kind = type(child)
            if kind is str or kind is bool or child is None:
                continue
            if kind is dict or kind is list:
                pending.append((child, depth + 1))
            elif not _fits_scalar(child):
                return False
    return True


def _fits_scalar(value: Any) -> bool:
    kind = type(value)
    if kind is str or kind is bool or value is None:
        return True
    if kind is int:
        return bool(-MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER)
    if kind is float:
        return bool(value - value == 0.0)  # NaN and the infinities give NaN
    return False


def _first_misfit(value: Any, where: str, max_depth: int) -> str:
    """Where the first value ``_fits`` refuses is, and what it is (depth first, in order)."""
    pending: list[tuple[Any, str, int]] = [(value, where, 1)]
    while pending:
        item, path, depth = pending.pop()
        kind = type(item)
        if kind is dict or kind is list:
            if depth > max_depth:
                return f"{_short(path)} nests lists and objects deeper than {max_depth} levels"
            if kind is dict:
                for key in item:
                    if type(key) is not str:
                        return f"{_short(path)} has a key that is {describe(key)}, not text"
                children = [(child, _member(path, key)) for key, child in item.items()]
            else:
                children = [(child, f"{path}[{index}]") for index, child in enumerate(item)]
            pending.extend((child, at, depth + 1) for child, at in reversed(children))
        elif not _fits_scalar(item):
            return f"{_short(path)} is {describe(item)}"
    return f"{where} is not JSON"  # not reached: ``_fits`` and this walk agree


def _member(path: str, key: str) -> str:
    if key.isidentifier() and len(key) <= 40:
        return f"{path}.{key}"
    return f"{path}[{key[:40]!r}{'...' if len(key) > 40 else ''}]"


def _short(path: str) -> str:
    """A path deep in a value, its start and its end."""
    return path if len(path) <= 120 else f"{path[:70]}...{path[-40:]}"


def describe(value: Any) -> str:
    """What a value JSON cannot carry is, in words (never the value itself, which may be huge)."""
    kind = type(value)
    if kind is bytes or kind is bytearray:
        return f"a byte string ({len(value)} byte{'' if len(value) == 1 else 's'})"
    if kind is float:
        if value - value == 0.0:
            return "a number"
        return "NaN" if value != value else ("Infinity" if value > 0 else "-Infinity")
    if kind is int:
        if -MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER:
            return "a number"
        return f"a whole number past ±(2^53 − 1) ({value.bit_length()} bits)"
    if kind is bool or value is None:
        return "true, false or null"
    if kind is str:
        return "text"
    named = getattr(value, "json_misfit", None)
    if isinstance(named, str):
        return named
    return f"a value of type {kind.__name__}"
