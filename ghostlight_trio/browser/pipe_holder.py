"""The process that holds a managed browser's DevTools pipe for the browser's whole life.

``python -m ghostlight_trio.browser.pipe_holder EXTENSION_DIR EXTENSION_ID BROWSER [ARG...]``
starts the browser with the pipe on its fds 3 and 4, loads the extension over it, writes one
JSON line on stdout (``{"extension_id", "browser_pid"}`` or ``{"error"}``) and then keeps the
pipe open until the browser exits, and exits with it. Chromium ends when its pipe closes, so
the command that launches the browser cannot hold it and still return; this small process can,
and it leads the browser's process group, so stopping the group stops both. A signal to it
(SIGTERM, SIGINT, SIGHUP) is passed on to the browser as SIGTERM.
"""

from __future__ import annotations

import fcntl
import json
import os
import signal
import subprocess
import sys
from collections.abc import Sequence
from typing import Any

import trio

from .devtools_pipe import BROWSER_READS_FD, BROWSER_WRITES_FD, PipeError, load_unpacked

LOAD_WITHIN = 30.0
STOP_GRACE = 5.0
_HIGH_FD = 10
_FORWARDED = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)


def _pipe_fds() -> tuple[int, int]:
    """Put the browser's ends of two pipes on fds 3 and 4 of this process (its child inherits
    them there); return this process's ends (write to the browser, read from it), kept high."""
    originals = [fd for pair in (os.pipe(), os.pipe()) for fd in pair]
    ends = [fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, _HIGH_FD) for fd in originals]
    for fd in originals:
        os.close(fd)
    browser_reads, to_browser, from_browser, browser_writes = ends
    os.dup2(browser_reads, BROWSER_READS_FD, inheritable=True)
    os.dup2(browser_writes, BROWSER_WRITES_FD, inheritable=True)
    os.close(browser_reads)
    os.close(browser_writes)
    return to_browser, from_browser


def _report(body: dict[str, Any]) -> None:
    """The one line the launching command waits for; stdout is closed after it."""
    sys.stdout.write(json.dumps(body) + "\n")
    sys.stdout.flush()
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.close(devnull)


async def _forward_signals(process: trio.Process) -> None:
    with trio.open_signal_receiver(*_FORWARDED) as signals:
        async for _ in signals:
            if process.returncode is None:
                process.send_signal(signal.SIGTERM)


async def _drain(stream: trio.lowlevel.FdStream) -> None:
    """Read (and drop) what the browser writes, so it never blocks on a full pipe."""
    while await stream.receive_some():
        pass


async def hold(
    extension_dir: str, expected_id: str, args: Sequence[str], to_browser: int, from_browser: int
) -> int:
    """Run the browser with the pipe set up by ``_pipe_fds`` (before Trio opens fds of its
    own, which would otherwise sit on 3 and 4)."""
    process = await trio.lowlevel.open_process(
        list(args),
        stdin=subprocess.DEVNULL,
        stdout=sys.stderr.fileno(),  # the launching command points stderr at the browser log
        pass_fds=(BROWSER_READS_FD, BROWSER_WRITES_FD),
    )
    os.close(BROWSER_READS_FD)
    os.close(BROWSER_WRITES_FD)
    send, receive = trio.lowlevel.FdStream(to_browser), trio.lowlevel.FdStream(from_browser)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(_forward_signals, process)
        try:
            loaded = await load_unpacked(send, receive, extension_dir, within=LOAD_WITHIN)
            if loaded != expected_id:
                raise PipeError(
                    f"the browser loaded the extension as {loaded}, not {expected_id} (the id"
                    " its manifest key gives): the native host would refuse it"
                )
        except (PipeError, OSError, trio.BrokenResourceError) as exc:
            _report({"error": str(exc)})
            process.send_signal(signal.SIGTERM)
            with trio.move_on_after(STOP_GRACE):
                await process.wait()
            if process.returncode is None:
                process.kill()
        else:
            _report({"extension_id": loaded, "browser_pid": process.pid})
            nursery.start_soon(_drain, receive)
        code = await process.wait()
        nursery.cancel_scope.cancel()
    return 128 - code if code < 0 else code


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if len(argv) < 3:
        print("usage: pipe_holder EXTENSION_DIR EXTENSION_ID BROWSER [ARG...]", file=sys.stderr)
        return 2
    extension_dir, expected_id, *args = argv
    return trio.run(hold, extension_dir, expected_id, args, *_pipe_fds())


if __name__ == "__main__":
    sys.exit(main())
