"""``service stop`` and ``uninstall`` say when the instance's managed browser still runs, found
by its profile lock checked against the live process, and how to stop it."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ghostlight_trio.browser import managed
from ghostlight_trio.cli import service_control
from ghostlight_trio.cli.browser_left import browser_left_note


@pytest.fixture
def holder(endpoints: Any) -> Iterator[int]:
    """A live process whose command line names the profile, holding its ``SingletonLock``
    as Chromium does."""
    profile = managed.profile_dir(endpoints)
    profile.mkdir(parents=True)
    process = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(60)", f"--user-data-dir={profile}"]
    )
    os.symlink(f"{socket.gethostname()}-{process.pid}", profile / "SingletonLock")
    deadline = time.monotonic() + 10
    while b"--user-data-dir" not in Path(f"/proc/{process.pid}/cmdline").read_bytes():
        assert time.monotonic() < deadline, "the stand-in browser did not start"
        time.sleep(0.01)  # until it runs its own command line, not the forking one's
    try:
        yield process.pid
    finally:
        process.kill()
        process.wait()


def test_no_browser_no_note(endpoints: Any) -> None:
    assert browser_left_note(endpoints) is None


def test_a_running_browser_is_named_with_how_to_stop_it(endpoints: Any, holder: int) -> None:
    note = browser_left_note(endpoints)
    assert note is not None and f"pid {holder}" in note and f"`kill {holder}`" in note


async def test_service_stop_says_the_browser_still_runs(
    endpoints: Any, holder: int, capsys: pytest.CaptureFixture[str]
) -> None:
    assert await service_control.stop(endpoints) == 0
    out = capsys.readouterr().out
    assert "service not running" in out and f"still running (pid {holder}" in out
