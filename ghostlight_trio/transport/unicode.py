"""Text that cannot be carried: half a surrogate pair.

JSON may escape one (``"\\ud800"``), and Python then holds it in a ``str``, but it names no
character: UTF-8, CBOR, the audit trail and the logs cannot encode it. Inputs are checked where
they are read, so nothing past that point meets one.
"""

from __future__ import annotations

import json
from typing import Any


def has_lone_surrogate(value: Any) -> bool:
    """True when a string anywhere in JSON-shaped ``value`` (key or value) holds half a pair.

    Raises ``RecursionError`` for values nested past what the encoder follows."""
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False
