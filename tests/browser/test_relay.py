"""The browser connector's relay: Chrome frames in and out, a service that restarts mid-stream."""

from __future__ import annotations

import json
import struct
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import trio
import trio.testing
from ghostlight_browser_connector.chrome_frames import (
    ChromeClosed,
    ChromeFrameReader,
    ChromeFrameWriter,
)
from ghostlight_browser_connector.relay import Relay

from ghostlight_trio.transport.browser_link import TO_CHROME_CEILING
from ghostlight_trio.transport.stream import MessageStream

from .fake_extension import until

HELLO = {"type": "hello", "wire": 1, "browserId": "b", "generation": "g", "features": []}


def le(frame: dict | bytes) -> bytes:
    body = frame if isinstance(frame, bytes) else json.dumps(frame).encode()
    return struct.pack("<I", len(body)) + body


class FakeService:
    """A browser socket that records what each relay connection delivers."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.links: trio.MemorySendChannel[MessageStream]
        self.links, self.accepted = trio.open_memory_channel[MessageStream](8)

    async def serve(self, *, task_status: trio.TaskStatus[trio.CancelScope]) -> None:
        sock = trio.socket.socket(trio.socket.AF_UNIX, trio.socket.SOCK_STREAM)
        self.path.unlink(missing_ok=True)
        await sock.bind(str(self.path))
        sock.listen(4)
        listener = trio.SocketListener(sock)
        with trio.CancelScope() as scope:
            task_status.started(scope)
            try:
                while True:
                    stream = await listener.accept()
                    await self.links.send(MessageStream(stream, ceiling=64 * 1024 * 1024))
            finally:
                await listener.aclose()


async def frames(link: MessageStream, count: int) -> list[dict]:
    with trio.fail_after(5):
        return [json.loads(await link.receive_body()) for _ in range(count)]


async def read_le(stream: trio.abc.ReceiveStream) -> dict:
    reader = ChromeFrameReader(stream)
    with trio.fail_after(5):
        return json.loads(await reader.next_frame())


@pytest.fixture
def socket_path(tmp_path: Path) -> Path:
    return tmp_path / "b.sock"


@dataclass
class Wired:
    """A running relay between in-memory Chrome pipes and a ``FakeService``."""

    chrome_writes: trio.abc.SendStream
    chrome_reads: trio.abc.ReceiveStream
    service: FakeService
    service_scope: trio.CancelScope
    relay: Relay
    exit_codes: list[int] = field(default_factory=list)


async def start_relay(socket_path: Path, nursery: trio.Nursery) -> Wired:
    """Serve a ``FakeService`` on ``socket_path`` and run a relay to it in ``nursery`` (each
    exit code the relay returns lands in ``exit_codes``)."""
    chrome_writes, relay_in = trio.testing.memory_stream_one_way_pair()
    relay_out, chrome_reads = trio.testing.memory_stream_one_way_pair()
    service = FakeService(socket_path)
    service_scope = await nursery.start(service.serve)
    relay = Relay(socket_path, relay_in, relay_out, retry_interval=0.05, retry_window=5)
    wired = Wired(chrome_writes, chrome_reads, service, service_scope, relay)

    async def run_relay() -> None:
        wired.exit_codes.append(await relay.run())

    nursery.start_soon(run_relay)
    return wired


async def test_relay_replays_identity_and_loses_nothing_across_service_restart(
    socket_path: Path, nursery: trio.Nursery
) -> None:
    wired = await start_relay(socket_path, nursery)
    chrome_writes, chrome_reads, service = wired.chrome_writes, wired.chrome_reads, wired.service
    relay, exit_codes = wired.relay, wired.exit_codes
    await chrome_writes.send_all(le(HELLO) + le({"type": "response", "id": "r1", "result": {}}))
    first = await service.accepted.receive()
    relay_hello, hello, reply = await frames(first, 3)
    assert relay_hello["type"] == "relay_hello" and relay_hello["wire"] == 1
    assert hello == HELLO
    assert reply["id"] == "r1"

    await first.send_body(b'{"type":"welcome","slot":1}')
    assert (await read_le(chrome_reads))["type"] == "welcome"

    # The service goes away; Chrome keeps talking; nothing may be lost or the port closed.
    wired.service_scope.cancel()
    await first.aclose()
    await trio.sleep(0.1)
    await chrome_writes.send_all(le({"type": "tab_removed", "tabId": 1}))
    await chrome_writes.send_all(le({"type": "tab_removed", "tabId": 2}))
    await trio.sleep(0.2)
    await nursery.start(service.serve)
    second = await service.accepted.receive()
    replay = await frames(second, 4)
    assert [f["type"] for f in replay] == ["relay_hello", "hello", "tab_removed", "tab_removed"]
    assert replay[1] == HELLO
    assert [f["tabId"] for f in replay[2:]] == [1, 2]
    assert relay.connections == 2
    assert not exit_codes

    await chrome_writes.aclose()
    await until(lambda: exit_codes, within=5)
    assert exit_codes == [0]


async def test_relay_drops_oversized_frames_toward_chrome_and_keeps_going(
    socket_path: Path, nursery: trio.Nursery
) -> None:
    wired = await start_relay(socket_path, nursery)
    chrome_writes, chrome_reads, service = wired.chrome_writes, wired.chrome_reads, wired.service
    await chrome_writes.send_all(le(b"not json") + le(HELLO))
    link = await service.accepted.receive()
    _, hello = await frames(link, 2)
    assert hello == HELLO  # a malformed first frame is not taken as the identity
    await link.send_body(b'{"x":"' + b"a" * TO_CHROME_CEILING + b'"}')
    await link.send_body(b'{"type":"after"}')
    assert await read_le(chrome_reads) == {"type": "after"}
    await chrome_writes.aclose()


async def test_relay_passes_the_kill_switch_stop_and_its_answers_unchanged(
    socket_path: Path, nursery: trio.Nursery
) -> None:
    wired = await start_relay(socket_path, nursery)
    chrome_writes, chrome_reads, service = wired.chrome_writes, wired.chrome_reads, wired.service
    await chrome_writes.send_all(le(HELLO))
    link = await service.accepted.receive()
    await frames(link, 2)
    stop = b'{"type":"stop","reason":"the user engaged the kill switch"}'
    await link.send_body(stop)
    reader = ChromeFrameReader(chrome_reads)
    with trio.fail_after(5):
        assert await reader.next_frame() == stop  # byte for byte
    answer = {"type": "error", "id": "r7", "error": {"message": "Stopped", "hop": "extension", "code": "stopped"}}
    await chrome_writes.send_all(le(answer))
    assert await frames(link, 1) == [answer]
    await chrome_writes.aclose()


async def test_reader_skips_oversized_frames_without_losing_step() -> None:
    send, receive = trio.testing.memory_stream_one_way_pair()
    reader = ChromeFrameReader(receive, ceiling=8)
    await send.send_all(struct.pack("<I", 20) + b"x" * 20 + le(b"ok") + struct.pack("<I", 5))
    assert await reader.next_frame() == b"ok"
    await send.aclose()
    with pytest.raises(ChromeClosed):
        await reader.next_frame()  # truncated frame then end of input


async def test_writer_refuses_frames_chrome_would_reject() -> None:
    send, receive = trio.testing.memory_stream_one_way_pair()
    writer = ChromeFrameWriter(send, ceiling=4)
    assert await writer.write(b"12345") is False
    assert await writer.write(b"1234") is True
    assert await receive.receive_some() == struct.pack("<I", 4) + b"1234"


@pytest.mark.process
async def test_native_host_exits_zero_when_chrome_closes_its_input(
    instance_env: dict[str, str],
) -> None:
    process = await trio.lowlevel.open_process(
        [sys.executable, "-m", "ghostlight_browser_connector", "chrome-extension://x/"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=instance_env,
    )
    assert process.stdin is not None
    await process.stdin.send_all(le(HELLO))
    await trio.sleep(0.3)
    await process.stdin.aclose()
    with trio.fail_after(10):
        assert await process.wait() == 0
