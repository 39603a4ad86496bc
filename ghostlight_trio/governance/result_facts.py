"""What governance reads of a tool's result, decoded once into typed values.

A result's structured content is the tool's to shape; the checks after a call read only a few
facts of it: the page it describes (its ``page`` facts, or its receipt's), where its action set
the tab going, that page's origin, and, for a tool whose catalog entry declares its landing
fields, where the tab landed. Each is decoded here, at the boundary, so the checks compare
values instead of looking members up.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from ..catalog.facts import LandingFields


@attrs.frozen
class Landing:
    """Where a navigation's result says its tab is. ``arrived`` is False while the server has
    not answered (the tab still shows the page it had) or when nothing will be shown there (a
    download)."""

    url: str
    arrived: bool


@attrs.frozen
class ResultFacts:
    page_url: str | None = None
    """The URL of the page the result describes (its page facts, or its receipt's)."""
    pending_url: str | None = None
    """The URL the result's action set the tab going to, when it had not landed yet."""
    origin: str | None = None
    """The origin the result's own page facts give."""
    landing: Landing | None = None
    """Where the tab landed, for a tool that declares its landing fields."""


def member(value: object, *path: str) -> object:
    """``value[path[0]][path[1]]...``, or None where a step is missing or not an object."""
    for key in path:
        if not isinstance(value, Mapping):
            return None
        value = value.get(key)
    return value


def _text(value: object) -> str | None:
    """A non-empty string, else None."""
    return value if isinstance(value, str) and value else None


def read_result(
    structured: Mapping[str, Any] | None, landing: LandingFields | None
) -> ResultFacts:
    """The facts of one result; ``landing``: the fields its tool declares for where it landed."""
    found = structured or {}
    origin = member(found, "page", "origin")
    receipt = member(found, "interactionReceipt")
    return ResultFacts(
        page_url=_text(member(found, "page", "url")) or _text(member(receipt, "page", "url")),
        pending_url=_text(member(receipt, "observedAfter", "navigationPending")),
        origin=origin if isinstance(origin, str) else None,
        landing=None if landing is None else _landing(found, landing),
    )


def _landing(found: Mapping[str, Any], fields: LandingFields) -> Landing | None:
    url = found.get(fields.url)
    if not isinstance(url, str):
        return None
    arrived = not (found.get(fields.pending) or found.get(fields.no_page))
    return Landing(url, arrived)
