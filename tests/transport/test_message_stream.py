"""MessageStream over a real socket pair: direct writes, the backlog they leave, and order."""

from __future__ import annotations

import socket

import pytest
import trio
import trio.testing

from ghostlight_trio.service.outbox import Outbox
from ghostlight_trio.transport.bridge import Message, Progress, Started
from ghostlight_trio.transport.stream import BridgeClosed, MessageStream


def _pair() -> tuple[MessageStream, MessageStream, socket.socket, socket.socket]:
    left, right = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    left.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    right.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    writer = MessageStream(trio.SocketStream(trio.socket.from_stdlib_socket(left)))
    reader = MessageStream(trio.SocketStream(trio.socket.from_stdlib_socket(right)))
    return writer, reader, left, right


def _progress(index: int, size: int = 100) -> Progress:
    return Progress(work_id=f"w{index}", progress=float(index), total=None, message="x" * size)


async def _receive(reader: MessageStream, count: int) -> list[Message]:
    return [await reader.receive() for _ in range(count)]


async def test_send_now_writes_at_once_when_the_socket_is_free() -> None:
    writer, reader, _, _ = _pair()
    assert writer.send_now([Started(sequence=1, work_id="a"), Started(sequence=2, work_id="b")])
    assert not writer.has_backlog
    received = await _receive(reader, 2)
    assert [m.work_id for m in received] == ["a", "b"]  # type: ignore[attr-defined]


async def test_a_full_socket_leaves_a_backlog_that_is_sent_before_anything_later() -> None:
    writer, reader, _, _ = _pair()
    big = [_progress(index, size=3000) for index in range(40)]  # far more than the buffers hold
    assert writer.send_now(big)
    assert writer.has_backlog
    # Nothing else may jump the queue: a later send waits behind the backlog.
    assert not writer.send_now([_progress(99)])
    async with trio.open_nursery() as nursery:
        nursery.start_soon(writer.send, _progress(40))
        received = await _receive(reader, 41)
    assert [m.work_id for m in received] == [f"w{i}" for i in range(41)]  # type: ignore[attr-defined]
    assert not writer.has_backlog


async def test_flush_delivers_a_backlog_on_its_own() -> None:
    writer, reader, _, _ = _pair()
    assert writer.send_now([_progress(index, size=3000) for index in range(20)])
    async with trio.open_nursery() as nursery:
        nursery.start_soon(writer.flush)
        received = await _receive(reader, 20)
    assert len(received) == 20 and not writer.has_backlog


async def test_send_now_declines_while_another_send_is_in_progress() -> None:
    writer, reader, _, _ = _pair()
    async with trio.open_nursery() as nursery:
        # Fill the socket through the async path, so that send parks mid-write.
        nursery.start_soon(writer.send_many, [_progress(i, size=3000) for i in range(30)])
        await trio.testing.wait_all_tasks_blocked()
        assert not writer.send_now([_progress(98)])
        received = await _receive(reader, 30)
    assert [m.work_id for m in received] == [f"w{i}" for i in range(30)]  # type: ignore[attr-defined]


async def test_send_now_on_a_closed_stream_declines_and_send_says_closed() -> None:
    writer, reader, _, _ = _pair()
    await reader.aclose()
    assert not writer.send_now([_progress(1)])  # the peer is gone: the async path reports it
    with pytest.raises(BridgeClosed):
        await writer.send(_progress(2))
    await writer.aclose()
    assert not writer.send_now([_progress(3)])  # closed socket: never a write on a stale fd


async def test_outbox_writes_ready_answers_directly_and_keeps_order_under_pressure() -> None:
    writer, reader, _, _ = _pair()
    outbox = Outbox(writer, backlog_limit=1000, progress_limit=1000)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(outbox.drain)
        for index in range(60):  # enough to fill the socket: later posts queue behind it
            outbox.post(_progress(index, size=2000))
        received = await _receive(reader, 60)
        outbox.close()
    assert [m.work_id for m in received] == [f"w{i}" for i in range(60)]  # type: ignore[attr-defined]


async def test_outbox_writes_each_answer_as_it_is_posted() -> None:
    writer, reader, _, right = _pair()
    outbox = Outbox(writer)
    outbox.post(Started(sequence=1, work_id="a"))
    assert right.recv(1, socket.MSG_DONTWAIT | socket.MSG_PEEK)  # written, no writer task ran
    outbox.post(Started(sequence=2, work_id="b"))
    received = await _receive(reader, 2)
    assert [m.work_id for m in received] == ["a", "b"]  # type: ignore[attr-defined]


async def test_closing_a_stream_ends_a_receive_waiting_on_it() -> None:
    writer, reader, _, _ = _pair()
    ended: list[BaseException] = []

    async def receive() -> None:
        try:
            await reader.receive()
        except BridgeClosed as exc:
            ended.append(exc)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(receive)
        await trio.testing.wait_all_tasks_blocked()
        await reader.aclose()
    assert len(ended) == 1


async def test_the_peer_going_away_ends_receive_with_bridge_closed() -> None:
    writer, reader, _, _ = _pair()
    assert writer.send_now([_progress(1)])
    await writer.aclose()
    assert (await reader.receive()).work_id == "w1"  # type: ignore[attr-defined]
    with pytest.raises(BridgeClosed):
        await reader.receive()


async def test_frames_larger_than_one_read_arrive_intact_through_the_reused_read_buffer() -> None:
    """Reads reuse one buffer; every byte must be copied out before the next read lands."""
    left, right = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    writer = MessageStream(trio.SocketStream(trio.socket.from_stdlib_socket(left)))
    reader = MessageStream(trio.SocketStream(trio.socket.from_stdlib_socket(right)))
    sizes = [700_000, 10, 300_000, 3, 262_144]  # several span more than one 256 KiB read
    sent = [
        Progress(work_id=f"w{i}", progress=float(i), total=None, message=chr(ord("a") + i) * size)
        for i, size in enumerate(sizes)
    ]
    async with trio.open_nursery() as nursery:
        nursery.start_soon(writer.send_many, sent)
        received = await _receive(reader, len(sent))
    assert received == sent
