"""The relay: Chrome's frames to the service and back, surviving service restarts.

Structure: one task reads Chrome's input (never cancelled mid-frame) into a bounded queue; one
task keeps a link to the service, replaying the relay hello and the cached extension hello on
every new connection. Chrome's port stays open while the service is away; queued frames are
delivered once it returns.
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

import trio

from ghostlight_trio.transport.browser_link import SERVICE_FRAME_CEILING, WIRE_MAJOR
from ghostlight_trio.transport.peercred import is_same_user
from ghostlight_trio.transport.stream import BridgeClosed, FrameError, MessageStream

from .chrome_frames import ChromeClosed, ChromeFrameReader, ChromeFrameWriter

log = logging.getLogger(__name__)

QUEUE_DEPTH = 64
RETRY_INTERVAL = 0.5
RETRY_WINDOW = 120.0
EOF_FLUSH = 1.0
"""After Chrome closes its end, queued frames get this long to reach the service."""


class ServiceUnreachable(Exception):
    """The service stayed away for the whole retry window."""


class Relay:
    """Relays one Chrome native port to the service's browser socket."""

    def __init__(
        self,
        socket_path: Path,
        chrome_in: trio.abc.ReceiveStream,
        chrome_out: trio.abc.SendStream,
        *,
        retry_interval: float = RETRY_INTERVAL,
        retry_window: float = RETRY_WINDOW,
    ) -> None:
        self._socket_path = socket_path
        self._reader = ChromeFrameReader(chrome_in)
        self._writer = ChromeFrameWriter(chrome_out)
        self._retry_interval = retry_interval
        self._retry_window = retry_window
        self._to_service, self._from_chrome = trio.open_memory_channel[bytes](QUEUE_DEPTH)
        self._identity: bytes | None = None
        self._identity_known = trio.Event()
        self._carry: bytes | None = None
        """A frame taken from the queue whose send did not complete; it goes first next time."""
        self._drained = trio.Event()
        self._chrome_gone: ChromeClosed | None = None
        self.connections = 0

    async def run(self) -> int:
        """Relay until Chrome closes its end (0) or the service stays unreachable (1)."""
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self._read_chrome, nursery.cancel_scope)
            try:
                await self._serve_links()
            except ChromeClosed as exc:
                log.info("%s; exiting", exc)
                nursery.cancel_scope.cancel()
                return 0
            except ServiceUnreachable as exc:
                log.error("%s; exiting so Chrome can restart the host", exc)
                nursery.cancel_scope.cancel()
                return 1
        return 0

    # --- Chrome -> queue ---------------------------------------------------------------------

    async def _read_chrome(self, relay_scope: trio.CancelScope) -> None:
        """Read frames until end of input, then give queued frames a moment and stop the relay."""
        try:
            while True:
                body = await self._reader.next_frame()
                if self._identity is None:
                    if not _is_extension_hello(body):
                        log.warning("ignored a first frame that is not the extension hello")
                        continue
                    self._identity = body
                    self._identity_known.set()
                    continue
                await self._to_service.send(body)
        except ChromeClosed as exc:
            log.info("%s", exc)
        self._to_service.close()
        with trio.move_on_after(EOF_FLUSH):
            await self._drained.wait()
        relay_scope.cancel()

    # --- service link ----------------------------------------------------------------------

    async def _serve_links(self) -> None:
        await self._identity_known.wait()
        while True:
            messages = await self._connect()
            self.connections += 1
            try:
                await self._relay_over(messages)
            finally:
                with trio.CancelScope(shield=True):
                    await trio.aclose_forcefully(messages.stream)
            if self._chrome_gone is not None:
                raise self._chrome_gone
            log.info("service link lost; reconnecting")

    async def _connect(self) -> MessageStream:
        with trio.move_on_after(self._retry_window):
            while True:
                try:
                    stream = await trio.open_unix_socket(str(self._socket_path))
                except OSError:
                    await trio.sleep(self._retry_interval)
                    continue
                if not is_same_user(stream.socket):  # type: ignore[arg-type]
                    await trio.aclose_forcefully(stream)
                    raise ServiceUnreachable(f"{self._socket_path} is served by another user")
                messages = MessageStream(stream, ceiling=SERVICE_FRAME_CEILING)
                try:
                    await messages.send_body(_relay_hello())
                    assert self._identity is not None
                    await messages.send_body(self._identity)
                except BridgeClosed:
                    await trio.aclose_forcefully(stream)
                    await trio.sleep(self._retry_interval)
                    continue
                return messages
        raise ServiceUnreachable(
            f"no Ghostlight service at {self._socket_path} for {self._retry_window:g}s"
        )

    async def _relay_over(self, messages: MessageStream) -> None:
        """Pump both directions until the link fails; ``ChromeClosed`` escapes to end the run."""
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self._pump_to_service, messages, nursery.cancel_scope)
            nursery.start_soon(self._pump_to_chrome, messages, nursery.cancel_scope)

    async def _pump_to_service(self, messages: MessageStream, link: trio.CancelScope) -> None:
        while True:
            if self._carry is None:
                try:
                    self._carry = await self._from_chrome.receive()
                except trio.EndOfChannel:
                    self._drained.set()
                    await trio.sleep_forever()
            try:
                with trio.CancelScope(shield=True):
                    await messages.send_body(self._carry)
            except BridgeClosed:
                link.cancel()
                return
            self._carry = None

    async def _pump_to_chrome(self, messages: MessageStream, link: trio.CancelScope) -> None:
        while True:
            try:
                body = await messages.receive_body()
            except (BridgeClosed, FrameError) as exc:
                log.info("service link ended: %s", exc)
                link.cancel()
                return
            try:
                await self._writer.write(body)
            except ChromeClosed as exc:
                self._chrome_gone = exc
                link.cancel()
                return


def _relay_hello() -> bytes:
    frame = {
        "type": "relay_hello",
        "wire": WIRE_MAJOR,
        "relayPid": os.getpid(),
        "browserPid": os.getppid(),
    }
    return json.dumps(frame, separators=(",", ":")).encode()


def _is_extension_hello(body: bytes) -> bool:
    try:
        frame = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return False
    return isinstance(frame, dict) and frame.get("type") == "hello"
