"""Text that cannot be carried: half a surrogate pair.

JSON may escape one (``"\\ud800"``), and Python then holds it in a ``str``, but it names no
character: UTF-8, CBOR, the audit trail and the logs cannot encode it. Inputs are checked where
they are read, so nothing past that point meets one.
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
