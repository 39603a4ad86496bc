"""Text that cannot be carried: half a surrogate pair.

JSON may escape one (``"\\ud800"``), and Python then holds it in a ``str``, but it names no
character: UTF-8, CBOR, the audit trail and the logs cannot encode it. Inputs are checked where
they are read, so nothing past that point meets one: what clients and users send is refused,
what pages show (and we only carry) is mended to U+FFFD.

And text that can be carried but not shown as it is: a page's title or address named on a line
of our own keeps no line break, control or bidirectional control (``one_line``).
"""

from __future__ import annotations

import json
import re
from typing import Any

_ESCAPE_TEXT = re.compile(r"\\u[dD][89a-fA-F]")
_ESCAPE_BYTES = re.compile(_ESCAPE_TEXT.pattern.encode())


def has_lone_surrogate(value: Any) -> bool:
    """True when a string anywhere in JSON-shaped ``value`` (key or value) holds half a pair.

    Raises ``RecursionError`` for values nested past what the encoder follows."""
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def escapes_lone_surrogate(raw: str | bytes, value: Any) -> bool:
    """True when ``value``, parsed from the JSON text ``raw``, holds half a pair. Only a ``\\u``
    escape of one can put it there, so text without such an escape costs one scan, no walk."""
    pattern = _ESCAPE_BYTES if isinstance(raw, bytes) else _ESCAPE_TEXT
    return pattern.search(raw) is not None and has_lone_surrogate(value)  # type: ignore[arg-type]


_HALF_PAIR = re.compile("[\ud800-\udfff]")
"""In a ``str`` parsed from JSON, whole pairs are already one character: any surrogate left is
half of one."""


def mend_lone_surrogates(raw: str | bytes, value: Any) -> Any:
    """``value`` (parsed from the JSON text ``raw``) with every half pair, in keys and values,
    replaced by U+FFFD, as a browser's own UTF-8 encoder does.

    For text that others wrote and we only carry (pages routinely cut an emoji in half): it
    is shown, not refused. Text without a surrogate escape costs one scan. Mends in place."""
    pattern = _ESCAPE_BYTES if isinstance(raw, bytes) else _ESCAPE_TEXT
    if pattern.search(raw) is None:  # type: ignore[arg-type]
        return value
    holder = [value]
    pending: list[tuple[Any, Any]] = [(holder, 0)]
    while pending:
        container, key = pending.pop()
        item = container[key]
        if isinstance(item, str):
            if _HALF_PAIR.search(item):
                container[key] = _HALF_PAIR.sub("\ufffd", item)
        elif isinstance(item, list):
            pending.extend((item, index) for index in range(len(item)))
        elif isinstance(item, dict):
            for name in [name for name in item if _HALF_PAIR.search(name)]:
                item[_HALF_PAIR.sub("\ufffd", name)] = item.pop(name)
            pending.extend((item, name) for name in item)
    return holder[0]


_LINE_BREAKS = re.compile("[\t\n\v\f\r\x1c-\x1f\x85\u2028\u2029]")
_UNSHOWN = re.compile(
    "[\x00-\x08\x0e-\x1b\x7f-\x84\x86-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
    "\U000e0000-\U000e007f]"
)
"""Controls, and what changes how the text around it reads without being seen itself: the
bidirectional marks, embeddings, overrides and isolates (text shown in another order than it
is read), and the tag characters (invisible letters)."""


def one_line(text: str) -> str:
    """Text others wrote (a page's title or address), as one line of plain text: each line
    break is a space, and each other control, bidirectional control or tag character is
    U+FFFD, so it can neither start a line of its own nor reorder or hide what it says. Every
    character stays one character: cutting the result cuts the text at the same place."""
    return _UNSHOWN.sub("\ufffd", _LINE_BREAKS.sub(" ", text))
