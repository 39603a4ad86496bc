"""Sans-IO length-prefixed frame codecs.

The bridge uses a 4-byte big-endian length; Chrome native messaging uses a 4-byte
little-endian one. Both check the declared length against a hard ceiling *before*
buffering the body, so an absurd length never allocates.
"""

from __future__ import annotations

import struct
from typing import Literal

BRIDGE_FRAME_CEILING = 16 * 1024 * 1024
"""Largest bridge frame body either side accepts (16 MiB)."""

Endian = Literal["big", "little"]


class FrameError(Exception):
    """A frame violated the framing rules; the stream that carried it cannot continue."""


class FrameBudgetExceeded(FrameError):
    """A stream's unfinished frame would take the bytes every stream's unfinished frames hold
    together past their budget. Not a protocol violation: the frame was refused for room."""


FRAME_ALLOWANCE = 1024 * 1024
"""Bytes of unfinished frames each stream holds on its own account (1 MiB): what usual frames
need, so however the budget is taken, a stream with ordinary calls is never refused for room."""
FRAME_BUDGET = 64 * 1024 * 1024
"""Bytes of unfinished frames all streams together hold past their allowances (64 MiB)."""


class FrameBudget:
    """Bytes that the unfinished frames of several streams (one service's) hold, bounded
    together. Each stream's first ``allowance`` bytes are its own; only bytes past that draw on
    the shared ``limit``, so a few streams filling it cannot refuse another's ordinary frames."""

    def __init__(self, limit: int = FRAME_BUDGET, *, allowance: int = FRAME_ALLOWANCE) -> None:
        self.limit = limit
        self.allowance = allowance
        self.held = 0
        """Bytes drawn on the shared limit now."""
        self.peak = 0
        """The most ever drawn at once."""
        self.buffered = 0
        """Bytes all the streams' decoders hold now, allowances included."""
        self.buffered_peak = 0
        """The most they ever held at once."""

    def take(self, amount: int) -> bool:
        """Draw ``amount`` bytes; False (nothing drawn) when they do not fit."""
        if self.held + amount > self.limit:
            return False
        self.held += amount
        self.peak = max(self.peak, self.held)
        return True

    def give(self, amount: int) -> None:
        self.held -= amount


def encode_frame(body: bytes, *, endian: Endian = "big", ceiling: int = BRIDGE_FRAME_CEILING) -> bytes:
    """Prefix ``body`` with its length; refuse bodies over the ceiling."""
    if len(body) > ceiling:
        raise FrameError(f"frame of {len(body)} bytes exceeds the {ceiling}-byte ceiling")
    fmt = ">I" if endian == "big" else "<I"
    return struct.pack(fmt, len(body)) + body


class FrameDecoder:
    """Feed bytes in, take whole frame bodies out. Never allocates past the ceiling."""

    def __init__(
        self,
        *,
        endian: Endian = "big",
        ceiling: int = BRIDGE_FRAME_CEILING,
        budget: FrameBudget | None = None,
    ) -> None:
        self._header = struct.Struct(">I" if endian == "big" else "<I")
        self.ceiling = ceiling
        """The largest body accepted; a stream may raise it once its peer is admitted."""
        self._buffer = bytearray()
        self._pending_length: int | None = None
        self._budget = budget
        self._drawn = 0
        """Bytes of the buffer drawn on ``budget`` (those past its allowance)."""
        self._counted = 0
        """Bytes of the buffer counted in ``budget.buffered``."""

    def feed(self, data: bytes | bytearray | memoryview) -> None:
        """Append received bytes (copied: a view may be reused by the reader afterwards).

        With a budget, raises FrameBudgetExceeded (nothing appended) when the bytes held past
        the allowance would not fit in it."""
        budget = self._budget
        if budget is not None:
            wanted = max(0, len(self._buffer) + len(data) - budget.allowance) - self._drawn
            if wanted > 0:
                if not budget.take(wanted):
                    raise FrameBudgetExceeded(
                        f"the service holds {budget.limit // (1024 * 1024)} MiB of unfinished"
                        " frames from all its connections, its limit, and this connection's"
                        f" frame of {self._frame_size(data)} bytes did not fit; send smaller"
                        " arguments, or retry once other clients' large calls are through"
                    )
                self._drawn += wanted
            self._counted += len(data)
            budget.buffered += len(data)
            budget.buffered_peak = max(budget.buffered_peak, budget.buffered)
        self._buffer += data

    def _frame_size(self, data: bytes | bytearray | memoryview) -> int:
        """The declared length of the frame being read (as far as it is known)."""
        if self._pending_length is not None:
            return self._pending_length
        head = bytes(self._buffer[:4]) + bytes(data[: max(0, 4 - len(self._buffer))])
        return int(self._header.unpack(head)[0]) if len(head) == 4 else len(head)

    def release(self) -> None:
        """Drop what is buffered and give its bytes back to the budget (the stream is over)."""
        self._buffer.clear()
        self._pending_length = None
        self._settle()

    @property
    def buffered(self) -> int:
        """Bytes held now (of frames not yet taken out)."""
        return len(self._buffer)

    def _settle(self) -> None:
        """Give back to the budget what the buffer no longer holds."""
        budget = self._budget
        if budget is None:
            return
        size = len(self._buffer)
        budget.buffered -= self._counted - size
        self._counted = size
        keep = max(0, size - budget.allowance)
        if keep < self._drawn:
            budget.give(self._drawn - keep)
            self._drawn = keep

    def next_frame(self) -> bytes | None:
        """Return the next complete body, ``None`` if more bytes are needed.

        Raises FrameError as soon as a declared length exceeds the ceiling.
        """
        buffer = self._buffer
        length = self._pending_length
        if length is None:
            if len(buffer) < 4:
                return None
            (length,) = self._header.unpack_from(buffer)
            if length > self.ceiling:
                raise FrameError(
                    f"declared frame length {length} exceeds the {self.ceiling}-byte ceiling"
                )
            end = 4 + length
            if len(buffer) >= end:  # the usual case: the whole frame is here
                body = bytes(buffer[4:end])
                del buffer[:end]
                if self._budget is not None:
                    self._settle()
                return body
            del buffer[:4]
            self._pending_length = length
            return None
        if len(buffer) < length:
            return None
        body = bytes(buffer[:length])
        del buffer[:length]
        self._pending_length = None
        if self._budget is not None:
            self._settle()
        return body

    @property
    def frame_ready(self) -> bool:
        """True when ``next_frame`` can answer without more bytes (a body, or its error)."""
        buffered = len(self._buffer)
        if self._pending_length is not None:
            return buffered >= self._pending_length
        if buffered < 4:
            return False
        length: int = self._header.unpack_from(self._buffer)[0]
        return length > self.ceiling or buffered >= 4 + length

    @property
    def has_partial_frame(self) -> bool:
        """True while a frame has started but not finished (a truncation if the stream ends now)."""
        return self._pending_length is not None or bool(self._buffer)
