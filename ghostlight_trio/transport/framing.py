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


def encode_frame(body: bytes, *, endian: Endian = "big", ceiling: int = BRIDGE_FRAME_CEILING) -> bytes:
    """Prefix ``body`` with its length; refuse bodies over the ceiling."""
    if len(body) > ceiling:
        raise FrameError(f"frame of {len(body)} bytes exceeds the {ceiling}-byte ceiling")
    fmt = ">I" if endian == "big" else "<I"
    return struct.pack(fmt, len(body)) + body


class FrameDecoder:
    """Feed bytes in, take whole frame bodies out. Never allocates past the ceiling."""

    def __init__(self, *, endian: Endian = "big", ceiling: int = BRIDGE_FRAME_CEILING) -> None:
        self._header = struct.Struct(">I" if endian == "big" else "<I")
        self._ceiling = ceiling
        self._buffer = bytearray()
        self._pending_length: int | None = None

    def feed(self, data: bytes | memoryview) -> None:
        """Append received bytes (copied: a view may be reused by the reader afterwards)."""
        self._buffer += data

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
            if length > self._ceiling:
                raise FrameError(
                    f"declared frame length {length} exceeds the {self._ceiling}-byte ceiling"
                )
            end = 4 + length
            if len(buffer) >= end:  # the usual case: the whole frame is here
                body = bytes(buffer[4:end])
                del buffer[:end]
                return body
            del buffer[:4]
            self._pending_length = length
            return None
        if len(buffer) < length:
            return None
        body = bytes(buffer[:length])
        del buffer[:length]
        self._pending_length = None
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
        return length > self._ceiling or buffered >= 4 + length

    @property
    def has_partial_frame(self) -> bool:
        """True while a frame has started but not finished (a truncation if the stream ends now)."""
        return self._pending_length is not None or bool(self._buffer)
