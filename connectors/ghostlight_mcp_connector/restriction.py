"""The client's optional tighten-only restriction, carried in request ``_meta``.

A client (or the person configuring it) may narrow what Ghostlight allows for its calls by
sending a policy manifest object — or its JSON text — under ``RESTRICTION_KEY``. The edge only
transports it: the service parses and enforces it, and a value the edge cannot decode is sent
as an invalid manifest so the service fails closed instead of silently ignoring it.
"""

from __future__ import annotations

import json
from typing import Any

from ghostlight_trio.untrusted.jsonshape import exceeds
from ghostlight_trio.untrusted.unicode import has_lone_surrogate

RESTRICTION_KEY = "io.ghostlight/restriction"
UNDECODABLE: dict[str, Any] = {"invalid": True}


MAX_DEPTH = 32
"""Far deeper than any manifest nests; text given as JSON is not bounded by the line's own
nesting limit, and a value the bridge could not carry would cost every call on it."""


def restriction_from_meta(meta: object) -> dict[str, Any] | None:
    """None when no restriction was given; otherwise the object to send to the service."""
    if not isinstance(meta, dict) or RESTRICTION_KEY not in meta:
        return None
    value = meta[RESTRICTION_KEY]
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except (ValueError, RecursionError):
            return dict(UNDECODABLE)
    if (
        isinstance(value, dict)
        and all(isinstance(key, str) for key in value)
        and not exceeds(value, max_depth=MAX_DEPTH)
        and not has_lone_surrogate(value)
    ):
        return value
    return dict(UNDECODABLE)
