"""An unwritable stdout while the prelude answers the first line: treated as the runtime's
writer treats it (the line is dropped without a word, the connector ends normally), never a
traceback.

Each case runs a real connector with stdout closed (``>&-``) or full (``>/dev/full``), once
with its first answer written by the prelude and once with it written by the runtime, and
the two must end alike.
"""

from __future__ import annotations

import fcntl
import os
import struct
import subprocess
import termios
import time
from pathlib import Path

import pytest
from ghostlight_mcp_connector.actions import ConnectBridge
from ghostlight_mcp_connector.prelude import answer_first_lines

from .harness import Instance
from .test_handlers import router

PING = b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n'
QUIET = b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n'
"""Answered by nothing: read by the prelude, it hands the next line to the runtime."""
STDIN_CLOSED = (
    "ghostlight-mcp-connector: INFO ghostlight_mcp_connector.runtime: stdin closed; shutting down"
)
REDIRECTS = {"closed": ">&-", "full": ">/dev/full"}
PATIENCE = 60.0
"""Seconds before a stuck connector is given up on (a bound, not a measurement)."""


def _unread(fd: int) -> int:
    """Bytes written to the pipe ``fd`` that its reader has not read yet."""
    return int(struct.unpack("i", fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0"))[0])


def _wait_until_read(fd: int) -> None:
    deadline = time.monotonic() + PATIENCE
    while _unread(fd):
        if time.monotonic() > deadline:
            raise AssertionError("the connector never read its first line")
        time.sleep(0.01)


def _run(instance: Instance, redirect: str, *, by_runtime: bool) -> tuple[int, list[str]]:
    """Ping a connector whose stdout is ``redirect``; its exit code and stderr lines. With
    ``by_runtime`` the prelude only reads a notification, so the runtime answers the ping."""
    command = ["sh", "-c", f'exec "$@" {redirect}', "sh", *instance.connector_command()]
    process = subprocess.Popen(
        command, env=instance.env, stdin=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert process.stdin is not None
    try:
        stdin = process.stdin.fileno()
        if by_runtime:
            os.write(stdin, QUIET)
            _wait_until_read(stdin)  # the prelude has its line: the rest is the runtime's
        os.write(stdin, PING)
        _, stderr = process.communicate(timeout=PATIENCE)  # closes stdin: the client is done
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    return process.returncode, stderr.decode(errors="replace").splitlines()


@pytest.mark.parametrize("stdout", sorted(REDIRECTS))
def test_an_unwritable_stdout_at_the_first_answer_ends_as_in_the_runtime(
    own_instance: Instance, stdout: str
) -> None:
    if stdout == "full" and not Path("/dev/full").exists():
        pytest.skip("no /dev/full here")
    redirect = REDIRECTS[stdout]
    by_prelude = _run(own_instance, redirect, by_runtime=False)
    by_runtime = _run(own_instance, redirect, by_runtime=True)
    for _code, lines in (by_prelude, by_runtime):
        assert not any("Traceback" in line or "Error" in line for line in lines), lines
        # Nothing about stdout: at most the ordinary note that stdin ended.
        assert set(lines) <= {STDIN_CLOSED}, lines
    assert by_prelude[0] == by_runtime[0] == 0


def test_a_full_stdout_drops_the_answers_but_hands_over_everything_else() -> None:
    """In process: a burst of first lines with stdout full. Nothing is raised, the answers
    are dropped, and what the runtime must still do (connect the bridge) is handed over."""
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full here")
    initialize = (
        b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":'
        b'"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}\n'
    )
    stdin_r, stdin_w = os.pipe()
    full = os.open("/dev/full", os.O_WRONLY)
    try:
        os.write(stdin_w, initialize + PING)
        r = router()
        handover = answer_first_lines(r, stdin=stdin_r, stdout=full, wait=PATIENCE)
        assert handover.stdout_gone and r.era == "2025-11-25"
        assert handover.pending == [ConnectBridge()] and not handover.at_eof
    finally:
        for fd in (stdin_r, stdin_w, full):
            os.close(fd)
