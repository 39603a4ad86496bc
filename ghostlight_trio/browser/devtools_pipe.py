"""The DevTools pipe: how a browser that ignores ``--load-extension`` gets the extension.

Branded Google Chrome 137 and later ignores ``--load-extension``; the supported way for
automation is ``Extensions.loadUnpacked`` over ``--remote-debugging-pipe`` (with
``--enable-unsafe-extension-debugging``). The browser reads commands on its fd 3 and writes
replies and events on its fd 4, each message one JSON text ended by a NUL byte. A pipe is two
file descriptors only this process holds: no port is opened, nothing else can reach it.
"""

from __future__ import annotations

import json
from typing import Any, Protocol

import trio

PIPE_SWITCHES = ("--remote-debugging-pipe", "--enable-unsafe-extension-debugging")
"""What a browser needs on its command line to take ``Extensions.loadUnpacked`` on the pipe."""
BROWSER_READS_FD = 3
BROWSER_WRITES_FD = 4
MAX_MESSAGE = 16 * 1024 * 1024
"""Far past any reply to the one command sent; a longer message means a broken pipe peer."""
LOAD_COMMAND_ID = 1


class PipeError(RuntimeError):
    """The pipe broke, or the browser refused the command; the message says which."""


def encode(message: dict[str, Any]) -> bytes:
    """One message as the browser reads it: compact JSON, then a NUL byte."""
    return json.dumps(message, separators=(",", ":")).encode() + b"\0"


class MessageReader:
    """Whole messages out of the bytes read from the browser, however the reads cut them."""

    def __init__(self, limit: int = MAX_MESSAGE) -> None:
        self._pending = bytearray()
        self._limit = limit

    def feed(self, data: bytes) -> list[dict[str, Any]]:
        """The messages ``data`` completes (a partial one waits for the rest)."""
        self._pending += data
        messages = []
        while (end := self._pending.find(b"\0")) >= 0:
            raw = bytes(self._pending[:end])
            del self._pending[: end + 1]
            try:
                message = json.loads(raw)
            except ValueError:
                raise PipeError(f"the browser wrote a message that is not JSON: {raw[:80]!r}") from None
            if isinstance(message, dict):
                messages.append(message)
        if len(self._pending) > self._limit:
            raise PipeError(f"the browser wrote a message over {self._limit} bytes")
        return messages


class _Sends(Protocol):
    async def send_all(self, data: bytes) -> None: ...


class _Receives(Protocol):
    async def receive_some(self, max_bytes: int | None = None) -> bytes: ...


async def call(
    send: _Sends, receive: _Receives, reader: MessageReader, message: dict[str, Any]
) -> dict[str, Any]:
    """Send one command and return the reply with its id (events in between are skipped)."""
    await send.send_all(encode(message))
    while True:
        data = await receive.receive_some()
        if not data:
            raise PipeError("the browser closed the DevTools pipe before it replied")
        for reply in reader.feed(data):
            if reply.get("id") == message["id"]:
                return reply


async def load_unpacked(
    send: _Sends, receive: _Receives, extension_dir: str, *, within: float
) -> str:
    """Load the unpacked extension at ``extension_dir``; its id as the browser gives it."""
    command = {
        "id": LOAD_COMMAND_ID,
        "method": "Extensions.loadUnpacked",
        "params": {"path": extension_dir},
    }
    with trio.move_on_after(within):
        reply = await call(send, receive, MessageReader(), command)
        error = reply.get("error")
        if error is not None:
            text = error.get("message", error) if isinstance(error, dict) else error
            raise PipeError(f"the browser refused Extensions.loadUnpacked: {text}")
        loaded = (reply.get("result") or {}).get("id")
        if not isinstance(loaded, str):
            raise PipeError(f"Extensions.loadUnpacked gave no extension id: {reply}")
        return loaded
    raise PipeError(f"the browser did not answer Extensions.loadUnpacked within {within:g}s")
