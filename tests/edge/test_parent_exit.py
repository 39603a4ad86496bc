"""A connector whose parent dies without closing stdin shuts itself down."""

from __future__ import annotations

import os
import shlex
import subprocess
import time

from .harness import Instance


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split()[2] != "Z"
    except FileNotFoundError:
        return False


def test_exits_when_parent_exits(shared_instance: Instance) -> None:
    command = shlex.join(shared_instance.connector_command())
    parent = subprocess.Popen(
        ["sh", "-c", f"{command} >/dev/null 2>&1 & echo $!; sleep 0.5"],
        env=shared_instance.env,
        stdin=subprocess.PIPE,  # kept open by this test: no EOF reaches the connector
        stdout=subprocess.PIPE,
    )
    assert parent.stdout is not None
    pid = int(parent.stdout.readline())
    parent.wait(5)
    deadline = time.monotonic() + 5
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    try:
        assert not _alive(pid), "connector outlived its parent"
    finally:
        if _alive(pid):
            os.kill(pid, 9)
        assert parent.stdin is not None
        parent.stdin.close()
