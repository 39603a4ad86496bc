"""Chrome native-messaging frames: 4-byte little-endian length, then a UTF-8 JSON body.

Reading never allocates for an oversized frame: its body is skipped and the stream stays in
step, so one bad frame never ends the relay.
"""

from __future__ import annotations

import logging
import struct

import trio

from ghostlight_trio.transport.browser_link import FROM_CHROME_CEILING, TO_CHROME_CEILING

log = logging.getLogger(__name__)

_READ = 64 * 1024
"""Below the allocator's mapping threshold: a larger read buffer is mapped and unmapped again
for every read, three system calls per message."""


class ChromeClosed(Exception):
    """Chrome closed the host's standard input (or a write to Chrome failed): time to exit."""


class ChromeFrameReader:
    """Whole frames from Chrome's end of the pipe; oversized ones are skipped with a log line."""

    def __init__(self, stream: trio.abc.ReceiveStream, *, ceiling: int = FROM_CHROME_CEILING):
        self._stream = stream
        self._ceiling = ceiling
        self._buffer = bytearray()

    async def next_frame(self) -> bytes:
        """The next acceptable body. Raises ``ChromeClosed`` at end of input."""
        while True:
            (length,) = struct.unpack("<I", await self._take(4))
            if length <= self._ceiling:
                return await self._take(length)
            log.warning("dropped a %d-byte frame from Chrome (limit %d)", length, self._ceiling)
            await self._skip(length)

    async def _fill(self) -> None:
        try:
            data = await self._stream.receive_some(_READ)
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError) as exc:
            raise ChromeClosed(f"reading from Chrome failed: {exc}") from None
        if not data:
            if self._buffer:
                log.warning("Chrome closed its end inside a frame (%d bytes)", len(self._buffer))
            raise ChromeClosed("Chrome closed the native messaging port")
        self._buffer += data

    async def _take(self, count: int) -> bytes:
        while len(self._buffer) < count:
            await self._fill()
        body = bytes(self._buffer[:count])
        del self._buffer[:count]
        return body

    async def _skip(self, count: int) -> None:
        while count > 0:
            if not self._buffer:
                await self._fill()
            step = min(count, len(self._buffer))
            del self._buffer[:step]
            count -= step


class ChromeFrameWriter:
    """Writes service frames to Chrome; a frame Chrome would refuse is dropped and logged."""

    def __init__(self, stream: trio.abc.SendStream, *, ceiling: int = TO_CHROME_CEILING):
        self._stream = stream
        self._ceiling = ceiling
        self._lock = trio.StrictFIFOLock()

    async def write(self, body: bytes) -> bool:
        """Write one frame; False when it was refused as oversized. ``ChromeClosed`` on failure."""
        if len(body) > self._ceiling:
            log.warning(
                "refused a %d-byte frame toward Chrome (limit %d)", len(body), self._ceiling
            )
            return False
        async with self._lock:
            try:
                await self._stream.send_all(struct.pack("<I", len(body)) + body)
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError) as exc:
                raise ChromeClosed(f"writing to Chrome failed: {exc}") from None
        return True
