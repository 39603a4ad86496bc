"""Ctrl-C during ``ghostlight browser launch`` and during each step of ``ghostlight demo``
leaves no process of the instance behind: no Chromium on its profile, no native host, no
service. The service and the browser run in sessions of their own, out of the terminal's
reach, so only the command that started them can stop them.

The real CLI runs as a subprocess in a session of its own with an isolated HOME and TMPDIR, and
SIGINT goes to its whole process group as a terminal's Ctrl-C does. Every process started under
that HOME (by environment or command line) counts as the instance's.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from e2e.isolated import isolated_home, left_behind, processes_of  # tests/ is on sys.path

pytestmark = [pytest.mark.e2e, pytest.mark.process]
GHOSTLIGHT = [sys.executable, "-m", "ghostlight_trio"]
DEMO_STEPS = 6
EXIT_WAIT = 30.0
SERVICE = "ghostlight_trio service"


@pytest.fixture
def isolated(tmp_path: Path) -> Iterator[tuple[dict[str, str], Path]]:
    with isolated_home(tmp_path) as made:
        yield made


def _start(arguments: list[str], env: dict[str, str], home: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        GHOSTLIGHT + arguments, cwd=home, env=env, text=True, start_new_session=True,
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip


def _interrupt(process: subprocess.Popen[str], *, group: bool = True) -> tuple[str, str]:
    """Ctrl-C as a terminal sends it: SIGINT to the command's whole process group (the MCP
    connector the demo started gets it too); else to the command alone, as `kill -INT` does."""
    if group:
        os.killpg(process.pid, signal.SIGINT)
    else:
        os.kill(process.pid, signal.SIGINT)
    out, err = process.communicate(timeout=EXIT_WAIT)
    return out, err


def _read_until(process: subprocess.Popen[str], pattern: str) -> str:
    assert process.stdout is not None
    seen = ""
    for line in process.stdout:
        seen += line
        if re.search(pattern, line):
            return seen
    raise AssertionError(f"the command ended before {pattern!r}:\n{seen}{process.communicate()[1]}")


def _wait_for(home: Path, process: subprocess.Popen[str], what: str) -> None:
    """Until a process of the instance whose command line holds ``what`` runs."""
    deadline = time.monotonic() + EXIT_WAIT
    while time.monotonic() < deadline and process.poll() is None:
        if any(what in line for line in processes_of(home).values()):
            return
        time.sleep(0.01)
    raise AssertionError(f"no process with {what!r} started")


@pytest.mark.parametrize("when", ["starting the service", "browser running"])
def test_ctrl_c_during_browser_launch_leaves_nothing(
    isolated: tuple[dict[str, str], Path], when: str
) -> None:
    env, home = isolated
    process = _start(["browser", "launch", "--headless"], env, home)
    if when == "starting the service":
        time.sleep(0.3)
    else:
        _wait_for(home, process, "--user-data-dir=")
    out, err = _interrupt(process)
    assert process.returncode == 130, out + err
    left = left_behind(home)
    assert not left, f"left running after Ctrl-C {when}: {left}\n{err}"
    if when == "browser running":
        assert "stopped what this command started" in err and "browser pid" in err, err


def test_a_launched_browser_is_named_and_service_stop_stops_it_when_headless(
    isolated: tuple[dict[str, str], Path],
) -> None:
    """A launch that succeeds leaves its browser running on purpose, and says which it is; a
    headless one has nothing left to serve once the service stops, so that stops it too."""
    env, home = isolated
    done = subprocess.run(
        GHOSTLIGHT + ["browser", "launch", "--headless"],
        cwd=home, env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    pid = int(re.search(r"browser pid (\d+)", done.stdout).group(1))  # type: ignore[union-attr]
    assert "ghostlight browser stop" in done.stdout and "ghostlight service stop" in done.stdout
    stopped = subprocess.run(
        GHOSTLIGHT + ["service", "stop"], cwd=home, env=env, capture_output=True, text=True,
        timeout=30,
    )  # fmt: skip
    assert stopped.returncode == 0, stopped.stdout + stopped.stderr
    assert f"Stopped the headless managed browser of instance 'default' (was pid {pid})" in stopped.stdout
    left = left_behind(home)
    assert not left, f"left running after service stop: {left}"


@pytest.mark.parametrize(
    ("step", "group"), [(step, True) for step in range(1, DEMO_STEPS + 1)] + [(5, False)]
)
def test_ctrl_c_during_each_demo_step_leaves_nothing(
    isolated: tuple[dict[str, str], Path], step: int, group: bool
) -> None:
    env, home = isolated
    process = _start(["demo"], env, home)
    seen = _read_until(process, rf"^\[{step}/{DEMO_STEPS}\]")
    if step == 1:  # past the line and into the start: the service it spawned is there
        _wait_for(home, process, SERVICE)
    out, err = _interrupt(process, group=group)
    assert process.returncode == 130, seen + out + err
    assert "Demo finished" not in out
    left = left_behind(home)
    assert not left, f"left running after Ctrl-C in step {step}: {left}\n{seen}{out}{err}"
