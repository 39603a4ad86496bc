"""What the sans-IO handlers ask the runtime to do; the runtime performs them in order."""

from __future__ import annotations

from typing import Any

import attrs

from ghostlight_trio.transport.bridge import Message


@attrs.frozen
class WriteMessage:
    """Write one JSON-RPC message (a dict) as one line on stdout."""

    payload: dict[str, Any]


@attrs.frozen
class SendBridge:
    """Send one bridge message on the current connection (dropped if it is gone)."""

    message: Message


@attrs.frozen
class ConnectBridge:
    """Connect the bridge (starting the service if needed); the runtime reports back.

    ``launch=False``: only reach a service that runs (or is starting) now, never start one:
    for reconnecting with no request waiting, so a service the user stopped stays stopped."""

    launch: bool = True


Action = WriteMessage | SendBridge | ConnectBridge


@attrs.frozen
class Reply:
    """A handler's answer to one request: what to do, and whether it accepted the request.

    ``accepted`` drives era pinning: only a request the handler took on pins its revision.
    """

    actions: list[Action]
    accepted: bool = False
