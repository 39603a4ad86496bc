"""The DevTools pipe: NUL-ended JSON messages however reads cut them, the one command that
loads the extension, and the holder process that keeps the pipe for the browser's life."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import trio
import trio.lowlevel

from ghostlight_trio.browser.devtools_pipe import (
    MessageReader,
    PipeError,
    call,
    encode,
    load_unpacked,
)

FAKE = Path(__file__).with_name("fake_pipe_browser.py")
EXTENSION_ID = "a" * 32


def test_a_message_is_compact_json_ended_by_one_nul() -> None:
    data = encode({"id": 1, "method": "Extensions.loadUnpacked", "params": {"path": "/x"}})
    assert data.endswith(b"\0") and data.count(b"\0") == 1
    assert json.loads(data[:-1]) == {"id": 1, "method": "Extensions.loadUnpacked", "params": {"path": "/x"}}


def test_partial_reads_are_joined_and_several_messages_split() -> None:
    reader = MessageReader()
    whole = encode({"id": 1}) + encode({"id": 2}) + encode({"method": "e"})
    seen = []
    for byte in range(len(whole)):
        seen += reader.feed(whole[byte : byte + 1])
    assert seen == [{"id": 1}, {"id": 2}, {"method": "e"}]
    assert reader.feed(whole) == seen


def test_a_message_that_is_not_json_or_too_long_breaks_the_pipe() -> None:
    with pytest.raises(PipeError, match="not JSON"):
        MessageReader().feed(b"{nope\0")
    with pytest.raises(PipeError, match="over 10 bytes"):
        MessageReader(limit=10).feed(b"x" * 11)


class _Browser:
    """A scripted peer: what was sent, and chunks to read back."""

    def __init__(self, *chunks: bytes) -> None:
        self.sent = b""
        self.chunks = list(chunks)

    async def send_all(self, data: bytes) -> None:
        self.sent += data

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        await trio.lowlevel.checkpoint()
        return self.chunks.pop(0) if self.chunks else b""


async def test_the_reply_with_the_command_s_id_is_returned_and_events_skipped() -> None:
    reply = encode({"id": 1, "result": {"id": EXTENSION_ID}})
    peer = _Browser(encode({"method": "Target.attached"}) + reply[:5], reply[5:])
    answer = await call(peer, peer, MessageReader(), {"id": 1, "method": "M"})
    assert answer["result"]["id"] == EXTENSION_ID
    assert peer.sent == encode({"id": 1, "method": "M"})


async def test_load_unpacked_sends_the_path_and_returns_the_id() -> None:
    peer = _Browser(encode({"id": 1, "result": {"id": EXTENSION_ID}}))
    assert await load_unpacked(peer, peer, "/ext", within=5) == EXTENSION_ID
    assert json.loads(peer.sent[:-1]) == {
        "id": 1, "method": "Extensions.loadUnpacked", "params": {"path": "/ext"},
    }  # fmt: skip


@pytest.mark.parametrize(
    ("chunks", "words"),
    [
        ((encode({"id": 1, "error": {"message": "Method not available."}}),), "refused.*not available"),
        ((encode({"id": 1, "result": {}}),), "no extension id"),
        ((), "closed the DevTools pipe"),
    ],
)
async def test_load_unpacked_says_why_it_failed(chunks: tuple[bytes, ...], words: str) -> None:
    peer = _Browser(*chunks)
    with pytest.raises(PipeError, match=words):
        await load_unpacked(peer, peer, "/ext", within=5)


async def test_load_unpacked_gives_up_on_a_silent_browser() -> None:
    class Silent(_Browser):
        async def receive_some(self, max_bytes: int | None = None) -> bytes:
            await trio.sleep_forever()
            raise AssertionError

    peer = Silent()
    with pytest.raises(PipeError, match="did not answer"):
        await load_unpacked(peer, peer, "/ext", within=0.1)


def _holder(answer: str, expected: str = EXTENSION_ID) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "ghostlight_trio.browser.pipe_holder", "/ext", expected,
         sys.executable, str(FAKE), answer],
        stdout=subprocess.PIPE, text=True, start_new_session=True,
    )  # fmt: skip


def _gone(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] == "Z"
    except OSError:
        return True


def test_the_holder_reports_the_load_and_keeps_the_browser_until_told_to_stop() -> None:
    holder = _holder(EXTENSION_ID)
    try:
        assert holder.stdout is not None
        report = json.loads(holder.stdout.readline())
        browser = report["browser_pid"]
        assert report["extension_id"] == EXTENSION_ID
        time.sleep(0.3)
        assert holder.poll() is None and not _gone(browser)  # the pipe is held open
        assert os.getpgid(browser) == holder.pid  # stopping the group stops both
        holder.send_signal(signal.SIGTERM)
        assert holder.wait(timeout=10) == 128 + signal.SIGTERM
        assert _gone(browser)
    finally:
        holder.kill()


def test_a_killed_holder_closes_the_pipe_and_the_browser_ends() -> None:
    holder = _holder(EXTENSION_ID)
    assert holder.stdout is not None
    browser = json.loads(holder.stdout.readline())["browser_pid"]
    holder.kill()
    holder.wait(timeout=10)
    deadline = time.monotonic() + 10
    while not _gone(browser):
        assert time.monotonic() < deadline, "the browser outlived its pipe"
        time.sleep(0.02)


@pytest.mark.parametrize(
    ("answer", "words"), [("refuse", "refused"), ("b" * 32, "not " + EXTENSION_ID)]
)
def test_the_holder_reports_a_failed_load_and_stops_the_browser(answer: str, words: str) -> None:
    holder = _holder(answer)
    assert holder.stdout is not None
    report = json.loads(holder.stdout.readline())
    assert words in report["error"] and "browser_pid" not in report
    assert holder.wait(timeout=10) != 0
