"""An answer the outbox's writer task sent is not kept by it: an exported GIF of several
megabytes must not stay alive until the stream's next answer."""

from __future__ import annotations

import gc
import weakref

import trio
import trio.testing

from ghostlight_trio.service.outbox import Outbox
from ghostlight_trio.transport.bridge import ImageBlock, Outcome
from ghostlight_trio.transport.stream import MessageStream


async def test_an_answer_the_writer_sent_is_let_go_before_the_next_one() -> None:
    ours, theirs = trio.testing.memory_stream_pair()  # no socket: the writer task sends
    outbox = Outbox(MessageStream(ours))
    received = 0

    async def read() -> None:
        nonlocal received
        while True:
            received += len(await theirs.receive_some(1 << 20))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(read)
        nursery.start_soon(outbox.drain)
        gif = Outcome(
            work_id="w1",
            kind="ok",
            content=[ImageBlock(data=bytes(4_000_000), mime_type="image/gif")],
        )
        sent = weakref.ref(gif)
        outbox.post(gif)
        del gif
        with trio.fail_after(5):
            while received < 4_000_000:  # noqa: ASYNC110 - the peer reads as it comes
                await trio.sleep(0.01)
        gc.collect()
        assert sent() is None
        nursery.cancel_scope.cancel()
