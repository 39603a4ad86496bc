"""Marking page-sourced output so an agent can tell page text from Ghostlight's own words.

Page text is untrusted: it may contain instructions aimed at the agent. Every block of it is
fenced by boundary lines carrying a per-workspace nonce (a page cannot forge the closing line
without knowing it) and the page origin, and ``structuredContent.provenance`` repeats both.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from ...engine.contracts import ToolCall, ToolResult
from ...untrusted.unicode import one_line

_KEY = secrets.token_bytes(32)
"""Per-process key: nonces are stable per workspace but reveal nothing about its handle."""
ORIGIN_LIMIT = 240
TITLE_LIMIT = 200
"""The most of a page's title shown (characters, with the mark of a cut): a title is a name,
and one of thousands of characters is a page speaking to the agent."""
URL_LIMIT = 2000
"""The most of a page's address shown (characters, with the mark of a cut)."""


def session_nonce(workspace_id: str | None) -> str:
    """32 lowercase hex characters, stable for one workspace in this service process."""
    digest = hmac.new(_KEY, (workspace_id or "").encode(), hashlib.sha256)
    return digest.hexdigest()[:32]


def origin_of(url: str) -> str:
    """``scheme://host[:port]`` for web URLs, ``scheme:`` for others, ``unknown`` when empty."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "unknown"
    if parts.scheme in ("http", "https", "ws", "wss", "ftp") and parts.netloc:
        host = parts.netloc.rsplit("@", 1)[-1]
        return f"{parts.scheme}://{host}"[:ORIGIN_LIMIT]
    if parts.scheme:
        return f"{parts.scheme}:"[:ORIGIN_LIMIT]
    return "unknown"


def wrap_page_text(text: str, workspace_id: str | None, origin: str) -> str:
    """``text`` between the untrusted-page-content boundary lines."""
    nonce = session_nonce(workspace_id)
    return (
        f"--- GHOSTLIGHT PAGE CONTENT {nonce} origin={origin} UNTRUSTED ---\n"
        f"{text}\n"
        f"--- END GHOSTLIGHT PAGE CONTENT {nonce} ---"
    )


def clip_fenced(text: str, limit: int, workspace_id: str | None) -> str:
    """``text`` cut to ``limit`` characters and marked, keeping its page content fenced: a cut
    inside a block of page text closes that block, so nothing said after it (our own words, the
    next step's) reads as part of the page's. Only the workspace's own boundary lines count: a
    page cannot write them."""
    if len(text) <= limit:
        return text
    nonce = session_nonce(workspace_id)
    kept = text[:limit]
    opened = kept.rfind(f"--- GHOSTLIGHT PAGE CONTENT {nonce} ")
    closing = f"--- END GHOSTLIGHT PAGE CONTENT {nonce} ---"
    closed = kept.rfind(closing)
    if opened > closed:
        return f"{kept} (truncated)\n{closing}"
    return f"{kept} (truncated)"


def _cut(text: str, limit: int) -> str:
    """``text`` whole up to ``limit`` characters, else its start marked as cut, ``limit``
    characters in all (so cutting again changes nothing)."""
    if len(text) <= limit:
        return text
    mark = f"… (cut from {len(text)} characters)"
    return text[: limit - len(mark)] + mark


def page_title(title: str) -> str:
    """A page's title as a tool shows it: one line, its controls neutralised, at most
    ``TITLE_LIMIT`` characters."""
    return _cut(one_line(title), TITLE_LIMIT)


def page_url(url: str) -> str:
    """A page's address (which its script may set: ``history.pushState``) as a tool shows it:
    one line, its controls neutralised, at most ``URL_LIMIT`` characters."""
    return _cut(one_line(url), URL_LIMIT)


def fenced_place(place: Mapping[str, str], workspace_id: str | None) -> str:
    """Where a tab is (``url``, ``title``, a ``pendingUrl``), already shown with ``page_url``
    and ``page_title``: the page's own words, so one JSON line inside the fence, whose origin
    is the address's (the pending one's when that is all there is)."""
    line = json.dumps(dict(place), ensure_ascii=False)
    origin = origin_of(str(place.get("url") or place.get("pendingUrl") or ""))
    return wrap_page_text(line, workspace_id, origin)


def provenance(workspace_id: str | None, origin: str) -> dict[str, Any]:
    """The ``provenance`` member of a page-sourced result's structured content."""
    return {
        "pageSourced": True,
        "untrusted": True,
        "topOrigin": origin,
        "sessionNonce": session_nonce(workspace_id),
    }


def page_facts(tab_id: int, url: str, title: str, render_serial: int | None) -> dict[str, Any]:
    """The ``page`` object results carry: where the content came from."""
    page: dict[str, Any] = {
        "tabId": tab_id,
        "url": url,
        "origin": origin_of(url),
        "title": title,
    }
    if render_serial is not None:
        page["renderSerial"] = render_serial
    return page


def page_result(
    call: ToolCall,
    text: str,
    page: dict[str, Any],
    ping: dict[str, Any] | None = None,
    **extra: Any,
) -> ToolResult:
    """Page-sourced text fenced as untrusted, with page facts and provenance. A tab on
    its way to another page (``ping`` names its pending URL) says the text is of the page
    it is leaving."""
    ws = call.context.workspace_id
    origin = page["origin"]
    structured = {"page": page, **extra, "provenance": provenance(ws, origin)}
    fenced = wrap_page_text(text, ws, origin)
    pending = (ping or {}).get("pendingUrl")
    if isinstance(pending, str) and pending:
        # Where it goes is the page's to say (a script sets location): fenced, as shown.
        pending = structured["pendingUrl"] = page_url(pending)
        fenced = (
            "The tab is navigating to another page (pendingUrl, first below), which has not"
            " loaded yet: what follows it is the page it is leaving.\n"
            f"{fenced_place({'pendingUrl': pending}, ws)}\n{fenced}"
        )
    return ToolResult.text(fenced, structured=structured)
