"""The MCP client's pipes: stdin lines in, protocol lines out, nothing else on stdout."""

from __future__ import annotations

import os
import select
import stat
from collections.abc import Callable

import trio

from .jsonrpc import LineSplitter, OversizedLine

_READ_CHUNK = 64 * 1024


def _open_fd(fd: int) -> trio.lowlevel.FdStream | None:
    """A non-blocking Trio stream on a duplicate of ``fd``; None for a regular file."""
    if stat.S_ISREG(os.fstat(fd).st_mode):
        return None
    return trio.lowlevel.FdStream(os.dup(fd))


async def read_lines(
    on_line: Callable[[bytes | OversizedLine], None], splitter: LineSplitter | None = None
) -> None:
    """Feed every stdin line to ``on_line`` until EOF (or a broken pipe, which is EOF too);
    ``splitter`` may already hold the start of a line read before."""
    splitter = splitter or LineSplitter()
    stream = _open_fd(0)
    try:
        while True:
            if stream is None:
                data = await trio.to_thread.run_sync(os.read, 0, _READ_CHUNK)
            else:
                try:
                    data = await stream.receive_some(_READ_CHUNK)
                except (trio.BrokenResourceError, trio.ClosedResourceError):
                    data = b""
            if not data:
                break
            for line in splitter.feed(data):
                on_line(line)
        for line in splitter.finish():
            on_line(line)
    finally:
        if stream is not None:
            await stream.aclose()


async def write_lines(lines: trio.MemoryReceiveChannel[bytes]) -> None:
    """Write queued protocol lines in order until the channel closes or stdout breaks."""
    stream = _open_fd(1)
    try:
        async for line in lines:
            if stream is None:  # a regular file: a write takes all of it, or fails
                try:
                    os.write(1, line)
                except OSError:  # a full disk, a closed file: as a broken pipe, nothing more
                    return
                continue
            try:
                await stream.send_all(line)
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                return
    finally:
        if stream is not None:
            await stream.aclose()


def stdout_gone() -> bool:
    """True when nobody can read stdout any more: the client closed its end of the pipe (or
    socket), or exited. Asked without writing, so answers still owed are not spent on it. A
    regular file or a terminal is never gone."""
    poller = select.poll()
    poller.register(1, select.POLLOUT)
    try:
        events = poller.poll(0)
    except OSError:
        return False
    return any(mask & (select.POLLERR | select.POLLHUP | select.POLLNVAL) for _, mask in events)
