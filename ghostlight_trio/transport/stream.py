"""Bridge messages over a Trio byte stream: one writer lock, one decoder, clean EOF."""

from __future__ import annotations

from collections.abc import Iterable

import trio

from .bridge import BridgeProtocolError, Message, decode_message, encode_message
from .framing import BRIDGE_FRAME_CEILING, FrameDecoder, FrameError, encode_frame

_RECEIVE_CHUNK = 256 * 1024


class BridgeClosed(Exception):
    """The peer closed the stream (cleanly or not); nothing more will arrive."""


class MessageStream:
    """Send and receive whole bridge messages. Sends are serialised; receive from one task."""

    def __init__(self, stream: trio.abc.Stream, *, ceiling: int = BRIDGE_FRAME_CEILING) -> None:
        self.stream = stream
        self._decoder = FrameDecoder(ceiling=ceiling)
        self._ceiling = ceiling
        # Sends are serialised by hand rather than with ``trio.Lock``: an uncontended send then
        # costs no schedule point of its own (``send_all`` has one) and no lock bookkeeping.
        self._sending = False
        self._send_waiters = trio.lowlevel.ParkingLot()

    async def send(self, message: Message) -> None:
        await self.send_body(encode_message(message))

    async def send_many(self, messages: Iterable[Message]) -> None:
        """Send several messages, in order, with one write: their frames back to back."""
        ceiling = self._ceiling
        await self._send_frame(
            b"".join([encode_frame(encode_message(m), ceiling=ceiling) for m in messages])
        )

    async def send_body(self, body: bytes) -> None:
        """Send an already-encoded body (the hello whose exact bytes get signed)."""
        await self._send_frame(encode_frame(body, ceiling=self._ceiling))

    async def _send_frame(self, data: bytes) -> None:
        if self._sending:
            # FIFO behind the current sender, which hands the turn over when it finishes.
            await self._send_waiters.park()
        else:
            self._sending = True
        try:
            await self.stream.send_all(data)
        except (trio.BrokenResourceError, trio.ClosedResourceError) as exc:
            raise BridgeClosed(str(exc)) from None
        finally:
            if self._send_waiters:
                self._send_waiters.unpark()
            else:
                self._sending = False

    async def receive_body(self) -> bytes:
        """Next whole frame body. Raises BridgeClosed at EOF, FrameError on bad framing."""
        while True:
            body = self._decoder.next_frame()
            if body is not None:
                return body
            try:
                data = await self.stream.receive_some(_RECEIVE_CHUNK)
            except (trio.BrokenResourceError, trio.ClosedResourceError) as exc:
                raise BridgeClosed(str(exc)) from None
            if not data:
                if self._decoder.has_partial_frame:
                    raise FrameError("stream ended inside a frame")
                raise BridgeClosed("peer closed the stream")
            self._decoder.feed(data)

    async def receive(self) -> Message:
        """Next decoded message; BridgeProtocolError / FrameError mean the stream is unusable."""
        return decode_message(await self.receive_body())

    async def aclose(self) -> None:
        await self.stream.aclose()


__all__ = ["BridgeClosed", "BridgeProtocolError", "FrameError", "MessageStream"]
