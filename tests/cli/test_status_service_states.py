"""``ghostlight status`` when no service answers: it says whether one runs all the same
(stopped, or silent) or none does (a stale socket, something else in the socket's place),
and gives the fix that works for that state, not always "start it"."""

from __future__ import annotations

import os
import signal
import socket

import pytest
import trio

from ghostlight_trio.cli import status as status_command
from ghostlight_trio.cli.background import ensure_service
from ghostlight_trio.service.lock import instance_lock
from ghostlight_trio.transport import handshake
from ghostlight_trio.transport.endpoints import Endpoints
from ghostlight_trio.transport.proof import load_or_create_secret


async def shown(endpoints: Endpoints, capsys: pytest.CaptureFixture[str]) -> list[str]:
    assert await status_command.status(endpoints) == 1
    return capsys.readouterr().out.splitlines()


@pytest.mark.process
async def test_a_stopped_service_runs_and_kill_cont_resumes_it(
    endpoints: Endpoints, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    process = await ensure_service(endpoints, "--keep-warm")
    assert process is not None
    try:
        process.send_signal(signal.SIGSTOP)
        with monkeypatch.context() as patch:
            patch.setattr(handshake, "HANDSHAKE_TIMEOUT", 0.5)  # a stopped one never answers
            lines = await shown(endpoints, capsys)
        assert lines[1] == f"service    running (pid {process.pid}) but not answering: it is stopped (SIGSTOP)"
        assert lines[3] == (
            f"{'':11}`kill -CONT {process.pid}` resumes it (or `ghostlight service restart"
            f" --instance {endpoints.instance}` replaces it)"
        )
        process.send_signal(signal.SIGCONT)
        assert await status_command.status(endpoints) == 0
        assert f"service    up, pid {process.pid}," in capsys.readouterr().out
    finally:
        process.send_signal(signal.SIGCONT)
        process.terminate()
        process.wait(10)


async def test_a_silent_service_that_is_not_stopped_may_be_frozen(
    endpoints: Endpoints, capsys: pytest.CaptureFixture[str], autojump_clock: trio.abc.Clock
) -> None:
    """Here a listener of this process holds the instance and never answers: a restart ends
    it (or, failing that, a kill) and a start replaces it."""
    endpoints.ensure_private_dirs()
    load_or_create_secret(endpoints.secret_file)
    listener = trio.socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    await listener.bind(str(endpoints.edge_socket))
    listener.listen(1)
    pid, flag = os.getpid(), f"--instance {endpoints.instance}"
    try:
        with instance_lock(endpoints):
            lines = await shown(endpoints, capsys)
    finally:
        listener.close()
    assert lines[1] == f"service    running (pid {pid}) but not answering: it may be frozen or overloaded"
    assert lines[3] == (
        f"{'':11}`ghostlight service restart {flag}` replaces it (should it not stop,"
        f" `kill -KILL {pid}`, then `ghostlight service start {flag}`)"
    )


async def test_a_stale_socket_is_not_running_and_a_start_replaces_it(
    endpoints: Endpoints, capsys: pytest.CaptureFixture[str]
) -> None:
    endpoints.ensure_private_dirs()
    load_or_create_secret(endpoints.secret_file)
    left = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    left.bind(str(endpoints.edge_socket))  # bound, never listening, then closed: stale
    left.close()
    lines = await shown(endpoints, capsys)
    assert lines[1] == (
        "service    down (not running; a service that stopped uncleanly left a stale socket,"
        " which the next start replaces)"
    )
    assert lines[3] == (
        f"{'':11}start it with `ghostlight service start --instance {endpoints.instance}`"
        " (MCP clients also start it)"
    )


async def test_a_directory_in_the_sockets_place_is_named_with_how_to_clear_it(
    endpoints: Endpoints, capsys: pytest.CaptureFixture[str]
) -> None:
    endpoints.ensure_private_dirs()
    load_or_create_secret(endpoints.secret_file)
    endpoints.edge_socket.mkdir()
    lines = await shown(endpoints, capsys)
    assert lines[1] == (
        f"service    down: {endpoints.edge_socket} is a directory, not a socket, so no service"
        " can listen there"
    )
    assert lines[3] == (
        f"{'':11}remove it (`rm -r {endpoints.edge_socket}`), then `ghostlight service start"
        f" --instance {endpoints.instance}` (MCP clients also start it)"
    )


@pytest.mark.parametrize("mode", [0o644, 0o640], ids=["0644", "0640"])
async def test_a_secret_others_can_read_is_the_reason_and_its_fix(
    endpoints: Endpoints, capsys: pytest.CaptureFixture[str], mode: int
) -> None:
    """No service starts with such a secret, so "start it" would fail: status names the
    secret and gives doctor's fix for it (remove it; a restart makes a fresh one)."""
    endpoints.ensure_private_dirs()
    load_or_create_secret(endpoints.secret_file)
    endpoints.secret_file.chmod(mode)
    lines = await shown(endpoints, capsys)
    assert lines[1] == (
        f"service    down: {endpoints.secret_file} has mode {mode:04o}; others can reach it, so no"
        " service can start"
    )
    assert lines[3] == (
        f"{'':11}rm {endpoints.secret_file} && ghostlight service restart --instance"
        f" {endpoints.instance}  (the service makes a fresh one)"
    )
    assert "service start" not in "\n".join(lines)
