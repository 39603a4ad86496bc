"""Why a load ended on the browser's own error page, in words an agent can act on.

The extension reads the code that page shows (``netError``: a Chromium net error such as
``ERR_TOO_MANY_REDIRECTS``, or an HTTP error answered without a page). Each cause comes with
the next step that fits it: a redirect loop or a refused connection fails the same way every
time, so "navigate again" is advice only where the failure may pass.
"""

from __future__ import annotations

import re
from http import HTTPStatus
from typing import Any

from ..engine.contracts import ToolResult

_NET_ERROR = re.compile(r"^(?:ERR|DNS_PROBE)_[A-Z0-9_]{1,60}$")
_NOT_FOUND = (
    "the host name was not found (no such address in DNS)",
    "check the host name in the URL for a typo; this address fails the same way every time",
)
_NO_LOOKUP = (
    "the host name could not be looked up",
    "check the host name in the URL; if it is right, the network's name lookup is failing:"
    " tell the user",
)
_OFFLINE = (
    "the computer has no internet connection",
    "tell the user; no address loads until the connection is back",
)
_TIMED_OUT = (
    "the server did not answer in time (the connection timed out)",
    "check the host and port in the URL; if they are right, the server is down or unreachable"
    " from here: try again later or tell the user",
)
_DROPPED = (
    "the server closed the connection without answering",
    "navigate there once more (the failure may pass); if it repeats, the server is failing:"
    " try another URL or tell the user",
)
_BAD_ANSWER = (
    "the server's answer was not valid HTTP the browser could show",
    "the server is broken at that address: try another URL or tell the user",
)
_NET_ERRORS: dict[str, tuple[str, str]] = {
    "ERR_TOO_MANY_REDIRECTS": (
        "the server redirected too many times (a redirect loop)",
        "do not navigate to this URL again: it loops the same way every time. The loop is the"
        " site's (often a login or cookie check sending the browser round in circles); try"
        " another page of the site, or tell the user",
    ),
    "ERR_CONNECTION_REFUSED": (
        "the connection was refused (no server is listening at that address and port)",
        "check the host and port in the URL, and that the server is running; loading it again"
        " fails the same way until one is",
    ),
    "ERR_NAME_NOT_RESOLVED": _NOT_FOUND,
    "DNS_PROBE_FINISHED_NXDOMAIN": _NOT_FOUND,
    "ERR_NAME_RESOLUTION_FAILED": _NO_LOOKUP,
    "ERR_INTERNET_DISCONNECTED": _OFFLINE,
    "DNS_PROBE_FINISHED_NO_INTERNET": _OFFLINE,
    "ERR_CONNECTION_TIMED_OUT": _TIMED_OUT,
    "ERR_TIMED_OUT": _TIMED_OUT,
    "ERR_CONNECTION_RESET": _DROPPED,
    "ERR_CONNECTION_CLOSED": _DROPPED,
    "ERR_EMPTY_RESPONSE": _DROPPED,
    "ERR_INVALID_RESPONSE": _BAD_ANSWER,
    "ERR_INVALID_HTTP_RESPONSE": _BAD_ANSWER,
    "ERR_CONTENT_DECODING_FAILED": _BAD_ANSWER,
    "ERR_ADDRESS_UNREACHABLE": (
        "the server's address cannot be reached from this computer",
        "check the host in the URL; if it is right, the network cannot get there: tell the user",
    ),
    "ERR_UNSAFE_PORT": (
        "the browser refuses to connect to that port (it blocks it as unsafe)",
        "use an address with another port; the browser never loads this one",
    ),
    "ERR_BLOCKED_BY_CLIENT": (
        "the browser blocked the request itself (an extension, such as an ad blocker)",
        "try another URL, or tell the user; loading it again is blocked the same way",
    ),
    "ERR_BLOCKED_BY_ADMINISTRATOR": (
        "the browser's policy (set by an administrator) blocks this address",
        "tell the user; the browser never loads this address",
    ),
    "ERR_FILE_NOT_FOUND": ("the file does not exist", "check the path in the URL"),
    "ERR_HTTP_RESPONSE_CODE_FAILURE": (  # its status not read
        "the server answered with an HTTP error and no page",
        "take a screenshot to see the status; check the URL, and navigate again only if the"
        " server's failure may have passed",
    ),
}
_BAD_CERTIFICATE = (
    "the site's security certificate is not valid",
    "do not try to get around it: check the host name in the URL (a certificate names the hosts"
    " it is for), or tell the user",
)
_NO_TLS = (
    "the secure (TLS) connection could not be set up",
    "check the scheme: a server without TLS needs http://, not https://; otherwise the site's"
    " TLS setup is broken: tell the user",
)
_NET_ERROR_FAMILIES = (
    ("ERR_CERT_", _BAD_CERTIFICATE),
    ("ERR_SSL_", _NO_TLS),
    ("DNS_PROBE_", _NO_LOOKUP),  # a lookup that failed, or whose probe had not ended yet
)


def error_page_result(
    asked: str, result: dict[str, Any], structured: dict[str, Any]
) -> ToolResult:
    """The load of ``asked`` (the address the navigation was given, not the page's) ended on
    the browser's own error page: say why, when the browser told."""
    known = _error_page_cause(result)
    if known is None:
        return ToolResult.text(
            f"Navigated to {asked}, but the page did not load: the tab shows the browser's"
            " error page, and what failed could not be read. Next step: take a screenshot to"
            " see the browser's error before navigating again.",
            kind="tool_error",
            structured=structured,
        )
    facts, cause, step = known
    return ToolResult.text(
        f"Navigated to {asked}, but the page did not load: {cause}, so the tab shows the"
        f" browser's error page ({facts['netError']}). Next step: {step}.",
        kind="tool_error",
        structured=structured | facts,
    )


def error_page_read_result(error_page: dict[str, Any] | None) -> ToolResult | None:
    """A request that met the browser's error page where a page was to be read or acted on,
    saying what failed when the extension could read it (else None: the general words)."""
    known = _error_page_cause(error_page or {})
    if known is None:
        return None
    facts, cause, step = known
    return ToolResult.text(
        f"[hop: page] The tab shows the browser's error page ({facts['netError']}): {cause},"
        f" so there is no page content to read. Next step: {step}.",
        kind="tool_error",
        structured=facts,
    )


def _error_page_cause(shown: dict[str, Any]) -> tuple[dict[str, Any], str, str] | None:
    """What the error page shows, as (structured facts, cause, next step); None when it names
    no net error this module can trust."""
    code = shown.get("netError")
    status = shown.get("httpStatus")
    if not isinstance(code, str) or not _NET_ERROR.match(code):
        return None
    facts: dict[str, Any] = {"netError": code}
    if type(status) is int and 400 <= status <= 599:
        facts["httpStatus"] = status
        return facts, f"the server answered HTTP {status}{http_reason(status)} with no page", _http_next_step(status)
    cause, step = _net_error_words(code)
    return facts, cause, step


def _net_error_words(code: str) -> tuple[str, str]:
    """The cause and next step for a net error code; an unknown one is named as it is."""
    words = _NET_ERRORS.get(code)
    if words is not None:
        return words
    for prefix, family in _NET_ERROR_FAMILIES:
        if code.startswith(prefix):
            return family
    return (
        f"the browser reports {code}",
        "take a screenshot to see the browser's error, and check the URL",
    )


def _http_next_step(status: int) -> str:
    """What to do about an HTTP error the server sent without a page of its own."""
    if status >= 500:
        return (
            "the server failed on its side: navigating again may work if the failure passes; if"
            " it repeats, try another URL or tell the user"
        )
    if status in (401, 403):
        return "the page needs a login or a permission this browser lacks: tell the user"
    if status == 429:
        return "the server asks for fewer requests: wait a while before navigating again"
    return "check the URL; loading the same one again gets the same answer"


def http_reason(status: int) -> str:
    """An HTTP status's usual phrase, as " (Not Found)"; "" for a status without one."""
    try:
        return f" ({HTTPStatus(status).phrase})"
    except ValueError:
        return ""
