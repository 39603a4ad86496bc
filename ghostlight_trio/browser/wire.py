"""Browser wire constants and frame helpers (see ``specs/browser-wire.md``).

The service side of the wire carries UTF-8 JSON objects in big-endian length frames; the relay
turns them into Chrome's little-endian frames unchanged. The major and the frame ceilings, which
the relay shares, are in ``transport.browser_link``.
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
from typing import Any, Final

from ..untrusted.unicode import mend_lone_surrogates

CHUNK_SLICE: Final = 512 * 1024
MAX_CHUNKS: Final = 64
MAX_CHUNKED_BYTES: Final = 32 * 1024 * 1024

FEATURE_CHUNKING: Final = "chunkingV1"
FEATURE_TAB_GROUPS: Final = "tabGroupsV1"
FEATURE_STOP: Final = "stopV1"
"""The extension answers every request it is running as soon as it gets a ``stop`` frame."""
FEATURE_DIALOGS: Final = "dialogsV1"
"""A JavaScript dialog answers the request it interrupts at once, and refuses page requests."""
FEATURE_STOP_REQUEST: Final = "stopRequestV1"
"""The extension answers one request at once (its waits end) on a ``stop_request`` frame."""
SERVICE_FEATURES: Final = (
    FEATURE_CHUNKING, FEATURE_TAB_GROUPS, FEATURE_STOP, FEATURE_DIALOGS, FEATURE_STOP_REQUEST
)  # fmt: skip

DIALOG_OPEN_CODE: Final = "dialog_open"
"""The error code of a request refused because a JavaScript dialog is open on its tab."""

STOPPED_CODE: Final = "stopped"
"""The error code of a request the extension stopped on the service's ``stop`` frame."""
KILL_SWITCH_REASON: Final = "the user engaged the kill switch"
CALLER_CANCELLED_REASON: Final = "its caller cancelled the call"

TOO_OLD_FOR_LARGE = (
    "This Ghostlight extension is too old for large values; update or reload the extension."
)


class WireError(ValueError):
    """A frame is not a JSON object of the browser wire."""


def encode(frame: dict[str, Any]) -> bytes:
    """Serialise one frame compactly (what the byte limits are measured on).

    Raises ``ValueError`` for a non-finite number: written as ``Infinity`` it would be no JSON,
    and the browser's side of the native link would get a frame it cannot parse."""
    text = json.dumps(frame, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return text.encode("utf-8")


def decode(body: bytes) -> dict[str, Any]:
    """Parse one frame body; anything but a JSON object is a ``WireError``.

    Page text may hold half a surrogate pair (an emoji cut in two by a script); it arrives as
    U+FFFD, since nothing past this point (CBOR, the audit trail, logs) could carry it."""
    try:
        text = body.decode("utf-8")
        value = mend_lone_surrogates(text, json.loads(text))
    except (UnicodeDecodeError, ValueError) as exc:
        raise WireError(f"frame is not UTF-8 JSON: {exc}") from None
    except RecursionError:
        raise WireError("frame nests deeper than this reader can follow") from None
    if not isinstance(value, dict):
        raise WireError("frame is not a JSON object")
    return value


def stop_frame(reason: str) -> dict[str, Any]:
    """Tell an extension to stop every request it is running and answer each one now."""
    return {"type": "stop", "reason": reason}


def stop_request_frame(request_id: str, reason: str) -> dict[str, Any]:
    """Tell an extension to stop one request and answer it now (what it set going stays)."""
    return {"type": "stop_request", "id": request_id, "reason": reason}


def workspace_ended_frame(browser_key: str, group_title: str, *, close_tabs: bool) -> dict[str, Any]:
    """Tell an extension a workspace (named by its browser key) is over: its tab group is
    retitled and greyed, its tabs stay open for the user and are nobody's from now on; or, in a
    browser no one sees (``close_tabs``), its tabs are closed, since no one else ever will."""
    return {
        "type": "workspace_ended",
        "guid": browser_key,
        "workspace": {"groupTitle": group_title},
        "closeTabs": close_tabs,
    }


def chunk_frames(body: bytes, request_id: str) -> list[bytes]:
    """Split an oversized request body into ``chunk`` frames, each under the Chrome limit.

    Raises ``ValueError`` when the body exceeds the bounded transfer size.
    """
    if len(body) > MAX_CHUNKED_BYTES:
        raise ValueError(
            f"request of {len(body)} bytes exceeds the {MAX_CHUNKED_BYTES}-byte transfer limit"
        )
    slices = [body[i : i + CHUNK_SLICE] for i in range(0, len(body), CHUNK_SLICE)]
    if len(slices) > MAX_CHUNKS:
        raise ValueError(f"request needs {len(slices)} chunks; the limit is {MAX_CHUNKS}")
    transfer_id = "wire_" + secrets.token_hex(16)
    digest = hashlib.sha256(body).hexdigest()
    return [
        encode(
            {
                "type": "chunk",
                "transferId": transfer_id,
                "requestId": request_id,
                "index": index,
                "count": len(slices),
                "totalBytes": len(body),
                "sha256": digest,
                "data": base64.b64encode(piece).decode("ascii"),
            }
        )
        for index, piece in enumerate(slices)
    ]
