"""What navigate's ``url`` argument names: a scheme-less address completed as the address bar
does, or why it is no page to open.

The gate judges the completed address, the one navigate then asks the browser for, so the two
never disagree on where a call goes.
"""

from __future__ import annotations

import ipaddress
import re
from urllib.parse import urlsplit

from ..untrusted.excerpt import quoted

_PASS_THROUGH = re.compile(
    r"^(?:about|chrome|chrome-extension|chrome-untrusted|chrome-search|chrome-native"
    r"|chrome-devtools|devtools|edge|brave|opera|vivaldi|extension|isolated-app|moz-extension"
    r"|data|file|view-source|blob|filesystem):",
    re.IGNORECASE,
)
"""Taken as written (the browser's own pages among them, which the gate then refuses), never
completed into ``https://<scheme>/...``."""
_SCHEME = re.compile(r"^([a-z][a-z0-9+.-]*):", re.IGNORECASE)
_HANDED_OFF = "an address the browser hands to another app on this computer"
_NOT_PAGES = {
    "javascript": ("a script", "run script on the page with javascript_tool instead"),
    "mailto": (_HANDED_OFF, "there is no page to open; tell the user the address instead"),
    "tel": (_HANDED_OFF, "there is no page to open; tell the user the number instead"),
    "sms": (_HANDED_OFF, "there is no page to open; tell the user the number instead"),
    "ftp": ("an FTP address, which Chrome no longer opens", "use an http or https address"),
    "ws": ("a WebSocket address, not a page", "open the page that uses it instead"),
    "wss": ("a WebSocket address, not a page", "open the page that uses it instead"),
}
"""Schemes navigate does not open, each with what it is and what to do instead. Taken for a
mistyped ``https`` they would send the tab somewhere else entirely (``mailto:a@b.test`` read
as ``https://b.test``)."""
_HTTP = re.compile(r"^https?://", re.IGNORECASE)
_SHORT_SCHEME = re.compile(r"^[a-z][a-z0-9+.-]{0,15}:/+", re.IGNORECASE)



def not_a_page(raw: str) -> str | None:
    """Why navigate does not open ``raw`` (a ``javascript:``, ``mailto:`` or ``ftp:`` URL, ...),
    or None."""
    scheme = _SCHEME.match(raw.strip())
    known = _NOT_PAGES.get(scheme.group(1).lower()) if scheme else None
    if known is None:
        return None
    what, instead = known
    return (
        f"navigate opens web pages (http and https); {quoted(raw)} is"
        f" {what}. Nothing was done: {instead}."
    )


def normalize_url(raw: str) -> str | None:
    """Complete a scheme-less URL with ``https://`` (``http://`` for this computer's own
    addresses); ``None`` when it cannot be a URL or is not one navigate opens."""
    text = raw.strip()
    if text.lower() in ("back", "forward"):
        return text.lower()
    if not text or any(ch.isspace() for ch in text) or not_a_page(text):
        return None
    if _PASS_THROUGH.match(text):
        return text
    completed = not _HTTP.match(text)
    if completed:
        text = "https://" + _SHORT_SCHEME.sub("", text)
    try:
        parts = urlsplit(text)
        parts.port  # noqa: B018 - raises ValueError on a malformed port
    except ValueError:
        return None
    if completed and _is_loopback(parts.hostname or ""):
        # As the address bar does: a local development server speaks plain http.
        text = "http://" + text[len("https://") :]
    return text if parts.hostname else None


def _is_loopback(host: str) -> bool:
    host = host.lower().rstrip(".")
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
