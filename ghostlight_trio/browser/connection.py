"""One admitted browser connection: its identity and the one writer of its frames."""

from __future__ import annotations

import attrs
import trio

from ..transport.stream import BridgeClosed, MessageStream
from .admission import ExtensionHello

SEND_BOUND = 10.0
"""A frame that cannot be written to the local relay within this long breaks the link."""


class LinkClosedBeforeSend(BridgeClosed):
    """The link was already closed: not one byte of the request was written."""


@attrs.define(eq=False)
class BrowserConnection:
    """A live relay link for one browser slot."""

    slot: int
    hello: ExtensionHello
    stream: MessageStream
    features: frozenset[str]
    closed: bool = False
    heard_at: float = attrs.field(factory=trio.current_time)
    """When the browser last sent a frame on this link."""
    unanswered_ping_at: float | None = None
    """When a ping the service sent after a silence went unanswered (None: it answers)."""
    _send_lock: trio.StrictFIFOLock = attrs.field(factory=trio.StrictFIFOLock)

    @property
    def generation(self) -> str:
        return self.hello.generation

    async def send_frames(self, bodies: list[bytes]) -> None:
        """Write whole frames in order, never leaving a half-written frame on the link.

        Runs shielded (a cancelled caller must not cut a frame in two) but bounded; a stuck
        link is closed and reported as ``BridgeClosed``.
        """
        async with self._send_lock:
            if self.closed:
                raise LinkClosedBeforeSend("browser connection already closed")
            with trio.CancelScope(shield=True):
                with trio.move_on_after(SEND_BOUND) as bound:
                    for body in bodies:
                        await self.stream.send_body(body)
                if bound.cancelled_caught:
                    await self.abort()
                    raise BridgeClosed("browser connection stopped reading")

    async def abort(self) -> None:
        """Close the link; the reader notices and fails what is pending."""
        self.closed = True
        with trio.CancelScope(shield=True):
            await trio.aclose_forcefully(self.stream.stream)
