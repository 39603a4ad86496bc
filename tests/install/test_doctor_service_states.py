"""``ghostlight doctor`` on a service that is neither simply up nor simply down: stopped with
SIGSTOP (running, not down: starting another cannot help), killed with its sockets left
behind (no fault: the next start replaces them), or blocked by something else in its
socket's place. Each verdict comes with a fix that works."""

from __future__ import annotations

import signal
import subprocess

import pytest

from ghostlight_trio.cli import service_control
from ghostlight_trio.cli.background import ensure_service, service_reachable
from ghostlight_trio.cli.doctor import collect
from ghostlight_trio.install.places import Place
from ghostlight_trio.launch.spawn import service_lock_holder
from ghostlight_trio.transport import handshake
from ghostlight_trio.transport.endpoints import Endpoints
from ghostlight_trio.transport.proof import load_or_create_secret

pytestmark = pytest.mark.process


def row(rows, name: str):
    return next(r for r in rows if r.name == name)


def failures(rows) -> list[str]:
    return [f"{r.section}/{r.name}: {r.detail}" for r in rows if r.verdict == "fail"]


async def start(endpoints: Endpoints) -> subprocess.Popen[bytes]:
    """A background service, as ``ghostlight service start`` and the clients start it."""
    process = await ensure_service(endpoints, "--keep-warm")
    assert process is not None
    return process


def end(process: subprocess.Popen[bytes]) -> None:
    process.send_signal(signal.SIGCONT)  # a stopped one would not act on SIGTERM
    if process.poll() is None:
        process.terminate()
    process.wait(10)


async def test_a_stopped_service_is_running_and_its_fixes_work(
    installed: Place, endpoints: Endpoints, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Starting another cannot replace a service that holds the instance: the row says it
    runs but is stopped, and both fixes it names bring the instance back."""
    process = await start(endpoints)
    flag = f"--instance {endpoints.instance}"
    try:
        process.send_signal(signal.SIGSTOP)
        with monkeypatch.context() as patch:
            patch.setattr(handshake, "HANDSHAKE_TIMEOUT", 0.5)  # a stopped one never answers
            rows = await collect(endpoints, installed)
        service = row(rows, "service")
        assert service.verdict == "fail"
        assert service.detail == f"running (pid {process.pid}) but not answering: it is stopped (SIGSTOP)"
        assert service.fix.startswith(
            f"`kill -CONT {process.pid}` resumes it (or `ghostlight service restart {flag}`"
            " replaces it)"
        )
        assert "service start" not in service.fix
        assert row(rows, "MCP socket").verdict == "ok"  # its own socket, live once it resumes

        process.send_signal(signal.SIGCONT)  # the first fix
        service = row(await collect(endpoints, installed), "service")
        assert service.verdict == "ok" and f"pid {process.pid}" in service.detail

        process.send_signal(signal.SIGSTOP)
        assert await service_control.restart(endpoints) == 0  # the second fix
        assert process.wait(10) is not None
        assert service_lock_holder(endpoints) not in (None, process.pid)
        assert await service_reachable(endpoints)
    finally:
        end(process)
        await service_control.stop(endpoints)


async def test_a_killed_services_stale_socket_is_no_fault(
    installed: Place, endpoints: Endpoints
) -> None:
    """A service killed outright leaves its sockets; the next start (a client's, on demand)
    replaces them, so this is the not-running state, and no socket row calls them live."""
    process = await start(endpoints)
    process.kill()
    process.wait(10)
    assert endpoints.edge_socket.is_socket()
    rows = await collect(endpoints, installed)
    service = row(rows, "service")
    assert service.verdict == "info"
    assert service.detail == (
        "not running now; a service that stopped uncleanly left a stale socket, which the next"
        " start replaces; an MCP client starts it on first use"
    )
    assert f"ghostlight service start --instance {endpoints.instance}" in service.fix
    for name, path in (("MCP socket", endpoints.edge_socket), ("browser socket", endpoints.browser_socket)):
        socket_row = row(rows, name)
        assert socket_row.verdict == "info", socket_row
        assert socket_row.detail.startswith(f"{path}: stale, nothing listens on it")
    assert failures(rows) == []

    again = await start(endpoints)  # and the next start does replace it
    try:
        assert row(await collect(endpoints, installed), "MCP socket").verdict == "ok"
    finally:
        end(again)


@pytest.mark.parametrize(
    ("kind", "make"), [("directory", lambda path: path.mkdir()), ("file", lambda path: path.touch())]
)
async def test_something_else_in_the_sockets_place_is_named(
    installed: Place, endpoints: Endpoints, kind, make
) -> None:
    """Not a stale socket: the row says what is there and how to clear it (a service ran here
    before, so its secret is there and connecting is refused rather than skipped)."""
    endpoints.ensure_private_dirs()
    load_or_create_secret(endpoints.secret_file)
    make(endpoints.edge_socket)
    rows = await collect(endpoints, installed)
    service = row(rows, "service")
    assert service.verdict == "fail"
    assert service.detail.startswith(
        f"down: {endpoints.edge_socket} is a {kind}, not a socket, so no service can listen there"
    )
    assert "stale" not in service.detail
    assert service.fix.startswith(
        f"remove it (`rm -r {endpoints.edge_socket}`), then"
        f" `ghostlight service start --instance {endpoints.instance}`"
    )


async def test_a_secret_others_can_read_gets_the_secret_fix_on_the_service_line(
    installed: Place, endpoints: Endpoints
) -> None:
    """A service cannot start with such a secret: the service line points to the secret
    line's fix, not to a start that fails, and that fix brings the service up."""
    endpoints.ensure_private_dirs()
    load_or_create_secret(endpoints.secret_file)
    endpoints.secret_file.chmod(0o644)
    rows = await collect(endpoints, installed)
    service, secret = row(rows, "service"), row(rows, "anti-squat secret")
    assert secret.verdict == "fail" and secret.fix.startswith(f"rm {endpoints.secret_file} && ")
    assert service.verdict == "fail"
    assert service.detail.startswith(f"down: {endpoints.secret_file} has mode 0644; others can reach it")
    assert service.fix.startswith(secret.fix + ";")
    assert "service start" not in service.fix
    endpoints.secret_file.unlink()  # the fix: remove it, then restart
    try:
        assert await service_control.restart(endpoints) == 0
        assert row(await collect(endpoints, installed), "service").verdict == "ok"
    finally:
        await service_control.stop(endpoints)
