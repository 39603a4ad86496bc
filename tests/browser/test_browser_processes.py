"""A running managed browser found through its profile lock, with every process of it, and
stopped whole: the leader first with SIGTERM, the rest (a native host in a group of its own)
with SIGKILL, and no process that only got a recycled pid."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest

from ghostlight_trio.browser import managed, processes
from ghostlight_trio.transport.endpoints import Endpoints

# A browser stand-in: starts a "native host" in a process group of its own (as Chromium
# starts hosts), ignores SIGTERM when told to, and sleeps.
BROWSER = """
import signal, subprocess, sys, time
if "--stubborn" in sys.argv:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)",
                  "ghostlight" + "_browser_connector"], process_group=0)
time.sleep(60)
"""


def _start(endpoints: Endpoints, *flags: str) -> subprocess.Popen[bytes]:
    profile = managed.profile_dir(endpoints)
    profile.mkdir(parents=True, exist_ok=True)
    process = subprocess.Popen(
        [sys.executable, "-c", BROWSER, f"--user-data-dir={profile}", *flags],
        start_new_session=True,
    )
    os.symlink(f"{socket.gethostname()}-{process.pid}", profile / "SingletonLock")
    deadline = time.monotonic() + 10
    while True:
        found = processes.find_running(endpoints)
        if found is not None and found.host_running:
            return process
        assert time.monotonic() < deadline, "the stand-in browser did not start its host"
        time.sleep(0.02)


@pytest.fixture
def started(endpoints: Endpoints) -> Iterator[list[subprocess.Popen[bytes]]]:
    launched: list[subprocess.Popen[bytes]] = []
    yield launched
    for process in launched:
        for proc in processes.descendants(process.pid, processes.all_procs()):
            os.kill(proc.pid, 9)
        process.kill()
        process.wait()


def test_no_lock_no_browser(endpoints: Endpoints) -> None:
    assert processes.find_running(endpoints) is None


@pytest.mark.parametrize("headless", [True, False])
def test_the_browser_is_found_with_its_host_and_whether_it_is_headless(
    endpoints: Endpoints, started: list[subprocess.Popen[bytes]], headless: bool
) -> None:
    started.append(_start(endpoints, *(["--headless"] if headless else [])))
    found = processes.find_running(endpoints)
    assert found is not None
    assert found.pid == started[0].pid and found.headless is headless
    assert found.holder is None and found.profile == managed.profile_dir(endpoints)
    assert len(found.members) == 2  # the browser and its host, in another group


@pytest.mark.parametrize("stubborn", [False, True])
async def test_stop_leaves_no_process(
    endpoints: Endpoints, started: list[subprocess.Popen[bytes]], stubborn: bool
) -> None:
    started.append(_start(endpoints, *(["--stubborn"] if stubborn else [])))
    found = processes.find_running(endpoints)
    assert found is not None
    start = time.monotonic()
    left = await processes.stop(found, grace=0.5)
    assert left == []
    started[0].wait(timeout=5)
    assert all(processes.read_proc(proc.pid) is None for proc in found.members
               if proc.pid != started[0].pid)  # fmt: skip
    assert processes.find_running(endpoints) is None
    assert (time.monotonic() - start < 0.5) is not stubborn  # SIGKILL only after the grace


def test_a_recycled_pid_is_not_the_process_seen_before(endpoints: Endpoints) -> None:
    me = processes.read_proc(os.getpid())
    assert me is not None
    assert processes._alive(me)
    assert not processes._alive(processes.Proc(me.pid, me.parent, me.group, me.started + 1, ()))
