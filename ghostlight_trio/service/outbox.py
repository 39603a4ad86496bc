"""Ordered answers for one stream. Posting never blocks, so a stalled edge cannot stall a call;
one writer task drains the queue to the socket."""

from __future__ import annotations

from collections import deque

import trio

from ..transport.bridge import Message, Progress
from ..transport.stream import MessageStream


class Outbox:
    """Implements the engine's ``ResponseSink`` for one bridge stream."""

    def __init__(self, *, backlog_limit: int = 64, progress_limit: int = 32) -> None:
        self._items: deque[Message] = deque()
        self._backlog_limit = backlog_limit
        self._progress_limit = progress_limit
        self._has_items = trio.lowlevel.ParkingLot()
        self._has_room = trio.lowlevel.ParkingLot()
        self._closed = False

    def post(self, message: Message) -> None:
        if self._closed:
            return
        self._items.append(message)
        self._has_items.unpark_all()

    def post_progress(self, message: Progress) -> None:
        """Progress is advisory: dropped when the stream is backed up."""
        if len(self._items) < self._progress_limit:
            self.post(message)

    async def wait_for_room(self) -> None:
        """The reader waits here, so an edge that never reads cannot grow the queue forever."""
        while not self._closed and len(self._items) >= self._backlog_limit:
            await self._has_room.park()
        await trio.lowlevel.checkpoint()

    def close(self) -> None:
        """The stream is gone: outstanding answers are discarded, later posts ignored."""
        self._closed = True
        self._items.clear()
        self._has_items.unpark_all()
        self._has_room.unpark_all()

    async def drain_to(self, stream: MessageStream) -> None:
        """Write queued messages in order until closed. Raises BridgeClosed if the peer left."""
        while True:
            while not self._items:
                if self._closed:
                    return
                await self._has_items.park()
            message = self._items.popleft()
            if len(self._items) < self._backlog_limit:
                self._has_room.unpark_all()
            await stream.send(message)
