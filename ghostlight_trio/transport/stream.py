"""Bridge messages over a Trio byte stream: one writer lock, one decoder, clean EOF."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence

import cbor2
import trio

from .bridge import Message
from .bridge_codec import BridgeProtocolError, decode_message, encode_message
from .framing import BRIDGE_FRAME_CEILING, FrameBudget, FrameDecoder, FrameError, encode_frame

_RECEIVE_CHUNK = 256 * 1024
_ENCODING_FAILURES = (ValueError, TypeError, cbor2.CBORError, FrameError)
"""What encoding a message can raise: a value CBOR cannot carry, or a frame over the ceiling."""

StandIn = Callable[[Message, Exception], "Message | None"]
"""Given a message that cannot be encoded and why: what to send in its place (None: nothing)."""


class BridgeClosed(Exception):
    """The peer closed the stream (cleanly or not); nothing more will arrive."""


class MessageStream:
    """Send and receive whole bridge messages. Sends are serialised; receive from one task."""

    def __init__(
        self,
        stream: trio.abc.Stream,
        *,
        ceiling: int = BRIDGE_FRAME_CEILING,
        budget: FrameBudget | None = None,
        decode: Callable[[bytes], Message] = decode_message,
        stand_in: StandIn | None = None,
    ) -> None:
        self.stream = stream
        self._decode = decode
        """How a body becomes a message (the service takes a connector's frames more strictly:
        ``bridge_intake.decode_from_client``)."""
        self._decoder = FrameDecoder(ceiling=ceiling, budget=budget)
        self._ceiling = ceiling
        self._unread: Message | None = None
        """A message taken ahead of its turn (``peek``), handed out by the next ``receive``."""
        self.stand_in = stand_in
        """Given by whoever answers on the stream (the service: ``outbox.stand_in``) when one
        message that cannot be encoded must not cost the others their answers. Without it,
        ``send_many`` and ``send_now`` raise."""
        # Sends are serialised by hand rather than with ``trio.Lock``: an uncontended send then
        # costs no schedule point of its own (``send_all`` has one) and no lock bookkeeping.
        self._sending = False
        self._send_waiters = trio.lowlevel.ParkingLot()
        # On a socket, writes are first tried directly (non-blocking): a frame the kernel takes
        # at once then costs one ``write`` and no trip through the scheduler. Bytes accepted by
        # ``send_now`` that the socket did not take yet wait here, ahead of every later send.
        self._socket = stream.socket if isinstance(stream, trio.SocketStream) else None
        self._backlog = b""
        # Socket reads land in one reused buffer: a fresh 256 KiB ``bytes`` per read would be
        # mapped, shrunk and unmapped by the allocator every time (three system calls a frame).
        self._read_buffer: memoryview | None = None

    async def send(self, message: Message) -> None:
        await self.send_body(encode_message(message))

    async def send_many(self, messages: Sequence[Message]) -> None:
        """Send several messages, in order, with one write: their frames back to back."""
        await self._send_frame(self._frames(messages))

    def _frames(self, messages: Sequence[Message]) -> bytes:
        ceiling = self._ceiling
        try:
            return b"".join([encode_frame(encode_message(m), ceiling=ceiling) for m in messages])
        except _ENCODING_FAILURES:
            if self.stand_in is None:
                raise
        frames = []
        for message in messages:
            try:
                frames.append(encode_frame(encode_message(message), ceiling=ceiling))
            except _ENCODING_FAILURES as exc:
                replacement = self.stand_in(message, exc)
                if replacement is not None:
                    frames.append(encode_frame(encode_message(replacement), ceiling=ceiling))
        return b"".join(frames)

    def send_now(self, messages: Sequence[Message]) -> bool:
        """Commit ``messages`` without waiting, when nothing else is being sent: one direct
        write, any tail the socket does not take kept for the next send or ``flush``.

        False when that is not possible now (a send in progress, a backlog, not a socket, or a
        failure the async path will report); the caller then queues them for ``send_many``.
        """
        if self._sending or self._backlog or self._socket is None:
            return False
        try:
            data = self._frames(messages)
            written = self._write_now(data)
        except (BridgeClosed, BridgeProtocolError, FrameError):
            return False
        if written < len(data):
            self._backlog = data[written:]
        return True

    @property
    def frame_ready(self) -> bool:
        """True when the next ``receive`` needs no I/O: a whole frame is already buffered."""
        return self._decoder.frame_ready

    @property
    def has_backlog(self) -> bool:
        """True while bytes committed by ``send_now`` still wait for the socket."""
        return bool(self._backlog)

    async def flush(self) -> None:
        """Write the backlog ``send_now`` left, if any."""
        if self._backlog:
            await self._send_frame(b"")

    async def send_body(self, body: bytes) -> None:
        """Send an already-encoded body (the hello whose exact bytes get signed)."""
        await self._send_frame(encode_frame(body, ceiling=self._ceiling))

    async def send_bodies(self, bodies: Sequence[bytes]) -> None:
        """Send already-encoded bodies with one write, so the peer reads them together."""
        await self._send_frame(
            b"".join(encode_frame(body, ceiling=self._ceiling) for body in bodies)
        )

    @property
    def receive_ceiling(self) -> int:
        """The largest frame body ``receive`` accepts."""
        return self._decoder.ceiling

    @receive_ceiling.setter
    def receive_ceiling(self, ceiling: int) -> None:
        self._decoder.ceiling = ceiling

    @property
    def buffered(self) -> int:
        """Bytes received and not yet taken out as frames."""
        return self._decoder.buffered

    async def _send_frame(self, data: bytes) -> None:
        if self._sending:
            # FIFO behind the current sender, which hands the turn over when it finishes.
            await self._send_waiters.park()
        else:
            self._sending = True
        try:
            await trio.lowlevel.checkpoint_if_cancelled()
            if self._backlog:
                data, self._backlog = self._backlog + data, b""
            if data:
                written = self._write_now(data)
                if written < len(data):
                    await self.stream.send_all(data[written:])
        except (trio.BrokenResourceError, trio.ClosedResourceError) as exc:
            raise BridgeClosed(str(exc)) from None
        finally:
            if self._send_waiters:
                self._send_waiters.unpark()
            else:
                self._sending = False

    def _write_now(self, data: bytes) -> int:
        """Bytes of ``data`` the socket took at once (0 when it would block or is no socket)."""
        sock = self._socket
        if sock is None:
            return 0
        fd = sock.fileno()
        if fd < 0:
            raise BridgeClosed("the stream is closed")
        try:
            return os.write(fd, data)
        except BlockingIOError:
            return 0
        except OSError as exc:
            raise BridgeClosed(str(exc)) from None

    async def receive_body(self) -> bytes:
        """Next whole frame body. Raises BridgeClosed at EOF, FrameError on bad framing."""
        while True:
            body = self._decoder.next_frame()
            if body is not None:
                return body
            data: bytes | bytearray | memoryview
            try:
                if self._socket is not None:
                    data = await self._read_socket()
                else:
                    data = await self.stream.receive_some(_RECEIVE_CHUNK)
            except (trio.BrokenResourceError, trio.ClosedResourceError) as exc:
                raise BridgeClosed(str(exc)) from None
            if not data:
                if self._decoder.has_partial_frame:
                    raise FrameError("stream ended inside a frame")
                raise BridgeClosed("peer closed the stream")
            self._decoder.feed(data)

    async def _read_socket(self) -> memoryview:
        """Wait until the socket is readable, then read it. A frame is wanted only once the last
        one is used up, which is nearly always before the peer has answered: waiting first
        spares the read that would fail and trio's try-first bookkeeping around it. The view
        is valid until the next read; the decoder copies it at once."""
        sock = self._socket
        assert sock is not None
        while True:
            fd = sock.fileno()
            if fd < 0:
                raise BridgeClosed("the stream is closed")
            await trio.lowlevel.wait_readable(fd)
            if sock.fileno() != fd:
                raise BridgeClosed("the stream is closed")
            buffer = self._read_buffer
            if buffer is None:
                buffer = self._read_buffer = memoryview(bytearray(_RECEIVE_CHUNK))
            try:
                return buffer[: os.readv(fd, (buffer,))]
            except BlockingIOError:  # a spurious wake-up
                continue
            except OSError as exc:
                raise BridgeClosed(str(exc)) from None

    async def receive(self) -> Message:
        """Next decoded message; BridgeProtocolError / FrameError mean the stream is unusable."""
        if self._unread is not None:
            message, self._unread = self._unread, None
            return message
        return self._decode(await self.receive_body())

    async def peek_ready(self) -> Message | None:
        """The next message when it is here already (whole in the buffer), else None; either
        way the next ``receive`` still returns it. Never waits for the peer."""
        if self._unread is None and self._decoder.frame_ready:
            self._unread = self._decode(await self.receive_body())
        return self._unread

    async def aclose(self) -> None:
        self._decoder.release()
        await self.stream.aclose()


__all__ = ["BridgeClosed", "BridgeProtocolError", "FrameError", "MessageStream"]
