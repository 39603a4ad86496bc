"""The environment a person's shell gives the real CLI, isolated: a HOME of its own, a short
TMPDIR (Chromium's and the instance's socket paths must fit), and none of the GHOSTLIGHT_*
variables a test run sets but the directory its MCP conversations are recorded in (held to the
official schema afterwards: ``tests/conftest.py``); and the processes started under that HOME, to
find any left behind."""

from __future__ import annotations

import os
import shutil
import signal
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from faults.stack import command_of, processes_with  # tests/ is on sys.path

from ghostlight_trio.cli.mcp_client import WIRE_LOG_ENV

SETTLE = 3.0
"""Grace for a process already stopped to leave /proc (its parent reaps it)."""


def cli_env(
    home: Path, tmp: Path, *, without: tuple[str, ...] = ("XDG_RUNTIME_DIR",)
) -> dict[str, str]:
    """This process's environment for a CLI run under ``home`` and ``tmp``, less ``without``."""
    env = {
        key: value
        for key, value in os.environ.items()
        if (not key.startswith("GHOSTLIGHT_") or key == WIRE_LOG_ENV) and key not in without
    }
    env.update(HOME=str(home), TMPDIR=str(tmp))
    return env


@contextmanager
def isolated_home(tmp_path: Path) -> Iterator[tuple[dict[str, str], Path]]:
    """An environment of its own: HOME under the test's directory, a short TMPDIR (socket
    paths must fit), and none of the GHOSTLIGHT_* variables or XDG_RUNTIME_DIR. Whatever of it
    still runs at the end is killed."""
    home = tmp_path / "home"
    home.mkdir()
    tmp = Path(tempfile.mkdtemp(prefix="gl-int-", dir="/tmp"))
    env = cli_env(home, tmp, without=("XDG_RUNTIME_DIR", "DISPLAY"))
    try:
        yield env, home
    finally:
        kill_all(processes_of(home))
        shutil.rmtree(tmp, ignore_errors=True)


def processes_of(home: Path) -> dict[int, str]:
    """Live processes started under ``home`` (named in their command line or environment)."""
    return {pid: command for pid in processes_with(str(home)) if (command := command_of(pid))}


def left_behind(home: Path) -> dict[int, str]:
    """The processes of ``home`` still running once ``SETTLE`` has passed."""
    deadline = time.monotonic() + SETTLE
    while (found := processes_of(home)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return found


def kill_all(pids: dict[int, str]) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
