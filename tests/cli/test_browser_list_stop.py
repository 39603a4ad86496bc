"""``browser list`` and ``browser stop`` on a stand-in managed browser (a process holding the
profile lock, as Chromium does), and ``service stop`` stopping a headless one it would
otherwise leave running with nothing to serve."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from ghostlight_trio.browser import managed
from ghostlight_trio.cli import service_control
from ghostlight_trio.cli.main import main
from ghostlight_trio.transport.endpoints import Endpoints

Launch = Callable[..., int]


@pytest.fixture
def stand_in(set_up_instance: Endpoints) -> Iterator[Launch]:
    """Starts a live process whose command line names the profile, holding its
    ``SingletonLock``; each is killed afterwards if still there."""
    launched: list[subprocess.Popen[bytes]] = []

    def start(*flags: str) -> int:
        profile = managed.profile_dir(set_up_instance)
        profile.mkdir(parents=True, exist_ok=True)
        process = subprocess.Popen(
            [sys.executable, "-c", "import time; time.sleep(60)", f"--user-data-dir={profile}",
             *flags],
            start_new_session=True,
        )  # fmt: skip
        launched.append(process)
        (profile / "SingletonLock").unlink(missing_ok=True)
        os.symlink(f"{socket.gethostname()}-{process.pid}", profile / "SingletonLock")
        deadline = time.monotonic() + 10
        while b"--user-data-dir" not in Path(f"/proc/{process.pid}/cmdline").read_bytes():
            assert time.monotonic() < deadline, "the stand-in browser did not start"
            time.sleep(0.01)
        return process.pid

    yield start
    for process in launched:
        process.kill()
        process.wait()


def _json(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, dict[str, object]]:
    code = main([*argv, "--json"])
    return code, json.loads(capsys.readouterr().out)


def test_list_and_stop_with_no_browser(set_up_instance: Endpoints, capsys) -> None:
    assert main(["browser", "list"]) == 0
    assert "no managed browser running" in capsys.readouterr().out
    assert _json(capsys, ["browser", "list"]) == (0, {"instance": set_up_instance.instance, "browsers": []})
    assert main(["browser", "stop"]) == 0
    assert "no managed browser running" in capsys.readouterr().out


def test_list_names_the_browser_and_stop_ends_it(stand_in: Launch, capsys) -> None:
    pid = stand_in("--headless")
    code, listed = _json(capsys, ["browser", "list"])
    assert code == 0
    [entry] = listed["browsers"]  # type: ignore[misc]
    assert entry["pid"] == pid and entry["headless"] is True
    assert entry["extension_connected"] is False and entry["loaded"] == "load-extension"
    assert main(["browser", "list"]) == 0
    assert f"browser pid {pid}, headless, extension not connected" in capsys.readouterr().out
    code, stopped = _json(capsys, ["browser", "stop"])
    assert code == 0 and stopped["ok"] is True and "error" not in stopped
    assert [e["pid"] for e in stopped["stopped"]] == [pid]  # type: ignore[union-attr]
    assert _json(capsys, ["browser", "list"])[1]["browsers"] == []


def test_list_and_stop_refuse_an_unknown_instance_but_stop_all_does_not(
    instance_env, capsys
) -> None:
    assert main(["browser", "list", "--instance", "nosuch"]) == 2
    assert main(["browser", "stop", "--instance", "nosuch"]) == 2
    capsys.readouterr()
    assert main(["browser", "stop", "--all", "--instance", "nosuch"]) == 0
    assert "no managed browser running (any instance)" in capsys.readouterr().out


async def test_service_stop_stops_a_headless_browser(
    set_up_instance: Endpoints, stand_in: Launch, capsys
) -> None:
    pid = stand_in("--headless")
    assert await service_control.stop(set_up_instance) == 0
    out = capsys.readouterr().out
    assert f"Stopped the headless managed browser of instance {set_up_instance.instance!r} (was pid {pid})" in out
    assert managed.running_browser(set_up_instance) is None


async def test_service_stop_leaves_a_windowed_browser_and_says_so(
    set_up_instance: Endpoints, stand_in: Launch, capsys
) -> None:
    pid = stand_in()
    assert await service_control.stop(set_up_instance) == 0
    out = capsys.readouterr().out
    assert f"still running (pid {pid}" in out and "ghostlight browser stop" in out
    assert managed.running_browser(set_up_instance) == pid
