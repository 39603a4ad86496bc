"""A second managed browser on an instance's profile is refused, not launched to die at once."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

from ghostlight_trio.browser.managed import profile_in_use


def test_a_profile_held_by_a_live_browser_names_its_pid(tmp_path: Path) -> None:
    profile = tmp_path / "browser-profile"
    profile.mkdir()
    assert profile_in_use(profile) is None
    script = "import time; print('up', flush=True); time.sleep(30)"
    holder = subprocess.Popen(
        [sys.executable, "-c", script, f"--user-data-dir={profile}"], stdout=subprocess.PIPE
    )
    try:
        # Popen may return before the child's exec: its /proc cmdline is empty until it runs.
        assert holder.stdout is not None and holder.stdout.readline() == b"up\n"
        (profile / "SingletonLock").symlink_to(f"{socket.gethostname()}-{holder.pid}")
        assert profile_in_use(profile) == holder.pid
        holder.kill()
        os.waitid(os.P_PID, holder.pid, os.WEXITED | os.WNOWAIT)  # a zombie, not yet reaped
        assert profile_in_use(profile) is None
    finally:
        holder.kill()
        holder.wait()
        if holder.stdout is not None:
            holder.stdout.close()
    other = tmp_path / "other"
    other.mkdir()
    (other / "SingletonLock").symlink_to(f"{socket.gethostname()}-{os.getpid()}")
    assert profile_in_use(other) is None  # a live pid that is some other program


def test_a_lock_left_by_a_browser_that_died_does_not_hold_the_profile(tmp_path: Path) -> None:
    gone = subprocess.Popen(["true"])
    gone.wait()
    profile = tmp_path / "browser-profile"
    profile.mkdir()
    (profile / "SingletonLock").symlink_to(f"{socket.gethostname()}-{gone.pid}")
    assert profile_in_use(profile) is None
    (profile / "SingletonLock").unlink()
    (profile / "SingletonLock").symlink_to(f"another-host-{os.getpid()}")
    assert profile_in_use(profile) is None
