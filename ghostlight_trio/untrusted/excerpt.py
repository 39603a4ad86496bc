"""Client-given text echoed back in an error: a name, not a payload."""

from __future__ import annotations

import json

ECHO_LIMIT = 100


def excerpt(text: str, limit: int = ECHO_LIMIT) -> str:
    """``text`` whole up to ``limit`` characters, else its start and its length: a 200 KB tool
    name would otherwise come back whole in the error, into the agent's context and the logs."""
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"


def quoted(text: str, limit: int = ECHO_LIMIT) -> str:
    """``text`` as a JSON string, cut like ``excerpt`` with the length outside the quotes."""
    if len(text) <= limit:
        return json.dumps(text, ensure_ascii=False)
    return f"{json.dumps(text[:limit], ensure_ascii=False)}... ({len(text)} characters)"
