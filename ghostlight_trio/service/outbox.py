"""Ordered answers for one stream. Posting never blocks, so a stalled edge cannot stall a call.

A post is written at once, straight from the posting task, when the socket is free (one
non-blocking write, no scheduler trip): a call's Started leaves as it is admitted and its
Outcome as it settles, so the edge, woken while it is still waiting, never waits on answers held
back. Only what the socket cannot take at once is drained, in order, by one writer task."""

from __future__ import annotations

import logging
from collections import deque

import trio

from ..engine import texts
from ..transport.bridge import Message, Outcome, Progress, TextBlock
from ..transport.framing import FrameError
from ..transport.stream import MessageStream

log = logging.getLogger("ghostlight.service")


class Outbox:
    """Implements the engine's ``ResponseSink`` for one bridge stream (made with ``stand_in``
    as its answer for what cannot be encoded)."""

    def __init__(
        self, stream: MessageStream, *, backlog_limit: int = 64, progress_limit: int = 32
    ) -> None:
        self._stream = stream
        self._items: deque[Message] = deque()
        self._in_flight = 0
        self._backlog_limit = backlog_limit
        self._progress_limit = progress_limit
        self._has_items = trio.lowlevel.ParkingLot()
        self._has_room = trio.lowlevel.ParkingLot()
        self._closed = False

    @property
    def _pending(self) -> int:
        """Answers queued or being written right now."""
        return len(self._items) + self._in_flight

    def post(self, message: Message) -> None:
        if self._closed:
            return
        items = self._items
        items.append(message)
        # Written now when nothing is being written; else the writer task, woken here, sends
        # it after what is in flight.
        if not self._in_flight:
            stream = self._stream
            if stream.send_now(list(items)):
                items.clear()
                if not stream.has_backlog:
                    return
        if self._has_items:
            self._has_items.unpark_all()

    def post_progress(self, message: Progress) -> None:
        """Progress is advisory: dropped when the stream is backed up."""
        if self._pending < self._progress_limit:
            self.post(message)

    async def wait_for_room(self) -> None:
        """The reader waits here, so an edge that never reads cannot grow the queue forever.
        Not a checkpoint when there is room: the reader's next read is one."""
        while not self._closed and self._pending >= self._backlog_limit:
            await self._has_room.park()

    def close(self) -> None:
        """The stream is gone: outstanding answers are discarded, later posts ignored."""
        self._closed = True
        self._items.clear()
        self._has_items.unpark_all()
        self._has_room.unpark_all()

    async def drain(self) -> None:
        """Write queued messages in order until closed. Raises BridgeClosed if the peer left.

        The writer runs only when a direct write was not possible (a write in progress, or a
        socket that did not take everything); what queued meanwhile leaves in one write."""
        items, stream = self._items, self._stream
        while True:
            while not items:
                if self._closed:
                    return
                if stream.has_backlog:
                    await stream.flush()
                    continue
                await self._has_items.park()
            batch = list(items)
            items.clear()
            self._in_flight = len(batch)
            try:
                await stream.send_many(batch)
            finally:
                self._in_flight = 0
                # Not kept while this task waits for the next answer: an answer can be large
                # (an exported GIF), and it is the caller's once written.
                del batch
            if self._has_room:
                self._has_room.unpark_all()


def stand_in(message: Message, problem: Exception) -> Message | None:
    """What goes out instead of an answer that cannot be encoded, so that one bad value costs
    neither its call its only answer nor the stream every other call's."""
    if isinstance(message, Progress):
        return None
    if not isinstance(message, Outcome):
        raise problem
    log.error(
        "work %s: its %s result cannot be sent (%s: %s); it is answered with an error instead",
        message.work_id,
        message.kind,
        type(problem).__name__,
        problem,
    )
    return Outcome(
        work_id=message.work_id,
        kind="tool_error",
        content=[
            TextBlock(
                text=texts.result_not_sendable(
                    message.kind, too_large=isinstance(problem, FrameError)
                )
            )
        ],
        workspace_id=message.workspace_id,
    )
