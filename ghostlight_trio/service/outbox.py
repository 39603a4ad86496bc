"""Ordered answers for one stream. Posting never blocks, so a stalled edge cannot stall a call.

A post is written at once, straight from the posting task, when the socket is free (one
non-blocking write, no scheduler trip). While a just-admitted call has yet to take its first
step, posts are held so that its answers share the write; the end of that step releases them.
Only what the socket cannot take at once is drained, in order, by one writer task."""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable

import trio

from ..engine import texts
from ..transport.bridge import Message, Outcome, Progress, TextBlock
from ..transport.framing import FrameError
from ..transport.stream import MessageStream

log = logging.getLogger("ghostlight.service")

_MAX_COALESCING_PASSES = 3


class Outbox:
    """Implements the engine's ``ResponseSink`` for one bridge stream."""

    def __init__(
        self, stream: MessageStream, *, backlog_limit: int = 64, progress_limit: int = 32
    ) -> None:
        self._stream = stream
        stream.stand_in = _stand_in
        self._items: deque[Message] = deque()
        self._in_flight = 0
        self._backlog_limit = backlog_limit
        self._progress_limit = progress_limit
        self._has_items = trio.lowlevel.ParkingLot()
        self._has_room = trio.lowlevel.ParkingLot()
        self._closed = False
        self.answers_imminent: Callable[[], bool] | None = None
        """Set by the stream's owner: True while more answers are about to be posted (a call
        was admitted but has not run yet), so they wait to share one write. Whoever sets it
        must call ``release`` when it turns False."""

    @property
    def _pending(self) -> int:
        """Answers queued or being written right now."""
        return len(self._items) + self._in_flight

    def post(self, message: Message) -> None:
        if self._closed:
            return
        self._items.append(message)
        self.release()

    def release(self) -> None:
        """Send what is queued, unless more answers are imminent: then the first step that ends
        the imminence calls this again (``WorkSession.answers_due``), so answers ready together
        share one write without waking the writer task."""
        items = self._items
        if not items:
            return
        if not self._in_flight:
            imminent = self.answers_imminent
            if imminent is not None and imminent():
                return
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
        socket that did not take everything). Answers that become ready together still leave
        in one write: before writing, it yields while ``answers_imminent`` says a just-admitted
        call has not run yet (at most a few scheduling passes). Without that probe it yields a
        fixed number of passes instead:
        a call's task is spawned in the step that posts its Started, so it has run once the
        writer yielded past that pass (once when the post woke the writer, twice when the post
        came while the writer was busy, because it may have been in the current pass).
        """
        items, stream = self._items, self._stream
        while True:
            if items:
                passes = 2
            else:
                while not items:
                    if self._closed:
                        return
                    if stream.has_backlog:
                        await stream.flush()
                        continue
                    await self._has_items.park()
                passes = 1
            imminent = self.answers_imminent
            if imminent is None:
                for _ in range(passes):
                    await trio.lowlevel.cancel_shielded_checkpoint()
            else:
                for _ in range(_MAX_COALESCING_PASSES):
                    if not imminent():
                        break
                    await trio.lowlevel.cancel_shielded_checkpoint()
            if not items:
                continue
            batch = list(items)
            items.clear()
            self._in_flight = len(batch)
            try:
                await stream.send_many(batch)
            finally:
                self._in_flight = 0
            if self._has_room:
                self._has_room.unpark_all()


def _stand_in(message: Message, problem: Exception) -> Message | None:
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
