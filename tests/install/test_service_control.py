"""``ghostlight service start|stop|restart``, ``status`` and ``logs`` on a background service."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

pytestmark = pytest.mark.process


def ghostlight(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ghostlight_trio", *args],
        env=env, capture_output=True, text=True, timeout=60,
    )


def test_background_service_lifecycle(instance_env: dict[str, str]) -> None:
    env = instance_env
    try:
        started = ghostlight(env, "service", "start")
        assert started.returncode == 0, started.stderr
        first_pid = int(re.search(r"pid (\d+)", started.stdout).group(1))
        assert "log: " in started.stdout and "service.log" in started.stdout

        status = ghostlight(env, "status")
        assert status.returncode == 0
        assert f"service    up, pid {first_pid}" in status.stdout
        assert "workspaces 0, active work 0" in status.stdout
        assert "control    agents may act" in status.stdout

        again = ghostlight(env, "service", "start")
        assert f"already running (pid {first_pid})" in again.stdout

        restarted = ghostlight(env, "service", "restart")
        assert restarted.returncode == 0, restarted.stderr
        assert f"service stopped (was pid {first_pid})" in restarted.stdout
        second_pid = int(re.search(r"started \(pid (\d+)", restarted.stdout).group(1))
        assert second_pid != first_pid

        logs = ghostlight(env, "logs", "-n", "20")
        listening = [line for line in logs.stdout.splitlines() if "listening" in line]
        assert len(listening) == 2  # one per start, each line once (no doubled handlers)
    finally:
        stopped = ghostlight(env, "service", "stop")
    assert stopped.returncode == 0 and "service stopped" in stopped.stdout
    down = ghostlight(env, "status")
    assert down.returncode == 1 and "service    down" in down.stdout
    assert ghostlight(env, "service", "stop").stdout.startswith("service not running")


def test_browser_launch_says_at_once_when_the_browser_dies(instance_env: dict[str, str]) -> None:
    """A browser that exits before its extension connects is reported with its exit code and
    where to look, not after waiting out the connect timeout; nothing is left running."""
    env = instance_env
    try:
        launched = ghostlight(env, "browser", "launch", "--browser-path", "/bin/false")
        assert launched.returncode == 1
        assert "the browser exited (code 1) before its extension connected" in launched.stderr
        assert "browser.log" in launched.stderr
        assert "Traceback" not in launched.stderr and launched.stdout == ""
    finally:
        ghostlight(env, "service", "stop")


def test_status_names_a_quarantined_tab_and_how_it_clears(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The user sees why agents cannot act on a tab, and what frees it."""
    import trio

    from ghostlight_trio.cli import status as status_command
    from ghostlight_trio.transport.bridge import StatusReport
    from ghostlight_trio.transport.endpoints import Endpoints

    report = StatusReport(1, "0.1.0", 42, 1, [], 1, 0, quarantined=["tab 4294967303"])

    async def fetch(endpoints: Endpoints) -> tuple[StatusReport, None]:
        return report, None

    monkeypatch.setattr(status_command, "fetch", fetch)
    assert trio.run(status_command.status, Endpoints.for_instance("default")) == 0
    shown = capsys.readouterr().out
    assert "quarantine tab 4294967303: an action there has an unknown outcome" in shown
    assert "until the browser answers it or the tab is closed" in shown
