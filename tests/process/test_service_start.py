"""Process level: starting the background service, as ``ghostlight service start`` and the
clients' first use do. Two starts at once share the one service; a start that stops says why."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest
import trio

from ghostlight_trio.cli.background import ensure_service, service_reachable
from ghostlight_trio.launch.spawn import service_lock_holder

pytestmark = pytest.mark.process


def _stop(process: subprocess.Popen[bytes] | None) -> None:
    if process is not None and process.poll() is None:
        process.send_signal(signal.SIGTERM)
        process.wait(10)


async def test_two_starts_at_once_share_the_one_service(endpoints) -> None:
    """Both find nothing running and both start one; the second loses the instance lock and
    stops, which is no failure: its start waits for the winner and reports success, and only
    the winner's start names a process as the one it started."""
    results: list[subprocess.Popen[bytes] | None] = []

    async def start() -> None:
        results.append(await ensure_service(endpoints, "--keep-warm"))

    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(start)
            nursery.start_soon(start)
        assert await service_reachable(endpoints)
        started = [process for process in results if process is not None]
        assert len(results) == 2 and len(started) == 1
        assert started[0].poll() is None
        assert service_lock_holder(endpoints) == started[0].pid
        # The other start came back only once its own service had stopped: nothing is left
        # to take over should this one stop.
        found = await trio.run_process(
            ["pgrep", "-f", f"ghostlight_trio service --instance {endpoints.instance} "],
            capture_stdout=True, check=False,
        )
        assert found.stdout.split() == [str(started[0].pid).encode()]
    finally:
        for process in results:
            _stop(process)
    assert service_lock_holder(endpoints) is None


async def test_a_start_that_stops_says_why(endpoints) -> None:
    """A directory where the socket goes stops the service as it starts: the start fails at
    once with the service's own words, not after waiting out its whole budget."""
    endpoints.ensure_private_dirs()
    endpoints.edge_socket.mkdir()
    with pytest.raises(RuntimeError) as caught:
        await ensure_service(endpoints)
    text = str(caught.value)
    assert f"instance {endpoints.instance!r} stopped as it started (exit status 1)" in text
    assert f"{endpoints.edge_socket} is a directory; remove it" in text
    assert str(endpoints.log_file) in text


def _shared_secret(endpoints) -> list[str]:
    endpoints.secret_file.write_bytes(os.urandom(32))
    endpoints.secret_file.chmod(0o644)
    return [f"{endpoints.secret_file} must be owned by you and mode 0600", "delete it"]


def _directory_at_the_socket(endpoints) -> list[str]:
    endpoints.edge_socket.mkdir()
    return [f"{endpoints.edge_socket} is a directory; remove it before starting the service"]


@pytest.mark.parametrize("condition", [_shared_secret, _directory_at_the_socket])
def test_a_condition_of_the_machine_stops_the_service_with_one_line(endpoints, condition) -> None:
    """What the user must fix on their machine is said in one line that says what to do,
    not as a traceback (the foreground service; a background start quotes the same line)."""
    endpoints.ensure_private_dirs()
    expected = condition(endpoints)
    done = subprocess.run(
        [sys.executable, "-m", "ghostlight_trio", "service", "--instance", endpoints.instance],
        capture_output=True,
        text=True,
        timeout=60,
        env=dict(os.environ),
    )
    assert done.returncode == 1
    assert "Traceback" not in done.stderr, done.stderr
    said = [line for line in done.stderr.splitlines() if line.startswith("ghostlight: ")]
    assert len(said) == 1, done.stderr
    for part in expected:
        assert part in said[0]


async def test_a_frozen_service_gets_a_clear_line_from_the_safety_switch(endpoints) -> None:
    """``ghostlight panic`` against a service that accepts but cannot answer (stopped with
    SIGSTOP here) says so in one line with its pid and how to stop it: no traceback, and no
    claim that another process squats on the socket."""
    process = await ensure_service(endpoints, "--keep-warm")
    assert process is not None
    process.send_signal(signal.SIGSTOP)
    try:
        done = await trio.run_process(
            [sys.executable, "-m", "ghostlight_trio", "panic", "--instance", endpoints.instance],
            capture_stdout=True, capture_stderr=True, check=False,
        )
    finally:
        process.send_signal(signal.SIGCONT)
        _stop(process)
    stderr = done.stderr.decode()
    assert done.returncode == 1
    assert "Traceback" not in stderr and "squatting" not in stderr, stderr
    assert f"(pid {process.pid}) accepted the connection but did not answer" in stderr
    assert "'panic' was not delivered" in stderr
