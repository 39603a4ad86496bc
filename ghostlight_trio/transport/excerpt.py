"""Client-given text echoed back in an error: a name, not a payload."""

from __future__ import annotations

ECHO_LIMIT = 100


def excerpt(text: str, limit: int = ECHO_LIMIT) -> str:
    """``text`` whole up to ``limit`` characters, else its start and its length: a 200 KB tool
    name would otherwise come back whole in the error, into the agent's context and the logs."""
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"
