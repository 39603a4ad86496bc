"""``ghostlight doctor`` on healthy and broken setups: the right verdict and fix per link."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import trio
from browser.fake_extension import FakeExtension  # tests/ is on sys.path (rootdir packages)

from ghostlight_trio.cli.doctor import collect, doctor
from ghostlight_trio.install import clients, hosts, jsonc
from ghostlight_trio.install.identity import server_name, wrapper_path
from ghostlight_trio.install.places import Place
from ghostlight_trio.service import run_service
from ghostlight_trio.transport.endpoints import Endpoints


async def start_service(nursery: trio.Nursery, endpoints: Endpoints) -> None:
    await nursery.start(
        lambda task_status: run_service(
            endpoints, keep_warm=True, handle_signals=False, task_status=task_status
        )
    )


def row(rows, name: str):
    return next(r for r in rows if r.name == name)


def failures(rows) -> list[str]:
    return [f"{r.section}/{r.name}: {r.detail}" for r in rows if r.verdict == "fail"]


async def test_healthy_setup_has_no_broken_link(
    installed: Place, endpoints: Endpoints, nursery: trio.Nursery
) -> None:
    await start_service(nursery, endpoints)
    peer, _ = await FakeExtension.attach(endpoints.browser_socket, browser_id="b-healthy")
    rows = await collect(endpoints, installed)  # the extension stays connected while doctor looks
    await peer.messages.aclose()
    assert failures(rows) == []
    assert row(rows, "service").verdict == "ok"
    assert row(rows, "Cursor").verdict == "ok"
    assert row(rows, "Chromium").verdict == "ok"
    browser = row(rows, "browser 1")
    assert browser.verdict == "ok" and "b-healthy" in browser.detail and "0.1.0" in browser.detail
    assert "chunkingV1" in browser.detail and "generation gen-1" in browser.detail
    assert row(rows, "MCP edges").detail.startswith("0 live")
    for name in ("MCP socket", "browser socket", "anti-squat secret", "runtime directory"):
        assert row(rows, name).verdict == "ok", name


async def test_service_down(installed: Place, endpoints: Endpoints) -> None:
    rows = await collect(endpoints, installed)
    service = row(rows, "service")
    # An on-demand service between uses: its normal state, not a broken link.
    assert service.verdict == "info"
    assert service.detail == "not running now; an MCP client starts it on first use"
    assert f"ghostlight service start --instance {endpoints.instance}" in service.fix
    assert row(rows, "extension").verdict == "skip"
    assert failures(rows) == []


async def test_a_service_that_stopped_shows_its_last_words_and_the_blocking_path(
    installed: Place, endpoints: Endpoints
) -> None:
    """Down because a directory sits where the socket goes: the service row quotes the log's
    last words (a traceback's exception), the socket row names the wrong kind of file."""
    endpoints.ensure_private_dirs()
    endpoints.edge_socket.mkdir()
    endpoints.log_file.write_text(
        "2026-11-30 13:00:00,000 INFO ghostlight.service: starting\n"
        "Traceback (most recent call last):\n"
        '  File "listener.py", line 55, in _remove_stale\n'
        "    raise RuntimeError(...)\n"
        f"RuntimeError: {endpoints.edge_socket} is a directory; remove it\n\n"
    )
    rows = await collect(endpoints, installed)
    service = row(rows, "service")
    assert service.verdict == "fail"
    assert service.detail.endswith(
        f"; its log ends: RuntimeError: {endpoints.edge_socket} is a directory; remove it"
    )
    socket_row = row(rows, "MCP socket")
    assert socket_row.verdict == "fail"
    assert socket_row.detail == f"{endpoints.edge_socket} is a directory, not a socket"
    assert f"rm -r {endpoints.edge_socket}" in socket_row.fix


async def test_wrong_socket_and_secret_modes(
    installed: Place, endpoints: Endpoints, nursery: trio.Nursery
) -> None:
    await start_service(nursery, endpoints)
    peer, _ = await FakeExtension.attach(endpoints.browser_socket)
    os.chmod(endpoints.edge_socket, 0o666)
    os.chmod(endpoints.secret_file, 0o644)
    rows = await collect(endpoints, installed)
    await peer.messages.aclose()
    socket = row(rows, "MCP socket")
    assert socket.verdict == "fail" and "mode 0666" in socket.detail
    assert socket.fix.startswith(f"chmod 600 {endpoints.edge_socket}")
    secret = row(rows, "anti-squat secret")
    # Others may have read it: the fix replaces it (the service refuses to start with it).
    assert secret.verdict == "fail"
    assert secret.fix == (
        f"rm {endpoints.secret_file} && ghostlight service restart --instance"
        f" {endpoints.instance}  (the service makes a fresh one)"
    )
    # the client side refuses a loose secret, so the service itself is unreachable too, and
    # the same fix (a restart with a fresh secret) is the way back
    service = row(rows, "service")
    assert service.verdict == "fail"
    assert service.detail.startswith(
        f"running (pid {os.getpid()}) but unreachable: {endpoints.secret_file} has mode 0644"
    )
    assert service.fix.startswith(secret.fix + ";")
    assert len(failures(rows)) == 3, failures(rows)


async def test_missing_manifest(installed: Place, endpoints: Endpoints) -> None:
    hosts.browser("chromium").manifest_path(installed).unlink()
    rows = await collect(endpoints, installed)
    chromium = row(rows, "Chromium")
    assert chromium.verdict == "warn" and "no native host manifest" in chromium.detail
    assert chromium.fix == f"ghostlight install --browser chromium --instance {endpoints.instance}"
    anywhere = row(rows, "any browser")
    assert anywhere.verdict == "fail" and "not registered for any browser" in anywhere.detail


async def test_stale_paths(installed: Place, endpoints: Endpoints) -> None:
    path = clients.client("cursor").path(installed)
    name = server_name(endpoints.instance)
    text = jsonc.set_member(
        path.read_text(), ["mcpServers"], name,
        {"command": "/gone/ghostlight-mcp-connector", "args": ["--instance", endpoints.instance]},
    )
    path.write_text(text)
    wrapper_path(endpoints).unlink()  # the instance's host program vanished
    rows = await collect(endpoints, installed)
    cursor = row(rows, "Cursor")
    assert cursor.verdict == "fail" and "stale path: /gone/ghostlight-mcp-connector" in cursor.detail
    assert cursor.fix == f"ghostlight install --client cursor --instance {endpoints.instance}"
    chromium = row(rows, "Chromium")
    assert chromium.verdict == "fail" and "stale path" in chromium.detail
    assert row(rows, "any client").verdict == "fail"


async def test_extension_absent(
    installed: Place, endpoints: Endpoints, nursery: trio.Nursery
) -> None:
    await start_service(nursery, endpoints)
    rows = await collect(endpoints, installed)
    extension = row(rows, "extension")
    assert extension.verdict == "fail" and extension.detail == "no browser extension is connected"
    assert "Load unpacked" not in extension.fix and "ghostlight install" in extension.fix
    assert failures(rows) == ["extension/extension: no browser extension is connected"]


async def test_extension_version_skew(
    installed: Place, endpoints: Endpoints, nursery: trio.Nursery
) -> None:
    await start_service(nursery, endpoints)
    peer, _ = await FakeExtension.attach(endpoints.browser_socket, extension_version="0.0.1")
    rows = await collect(endpoints, installed)  # the extension stays connected while doctor looks
    await peer.messages.aclose()
    browser = row(rows, "browser 1")
    assert browser.verdict == "fail" and "SKEW" in browser.detail
    assert "extension 0.0.1 is not supported" in browser.fix
    assert "update the Ghostlight extension" in browser.fix


async def test_json_output_and_exit_code(
    installed: Place, endpoints: Endpoints, capsys: pytest.CaptureFixture[str]
) -> None:
    assert await doctor(endpoints, as_json=True) == 0  # not running between uses is no fault
    body = json.loads(capsys.readouterr().out)
    assert body["ok"] is True and body["instance"] == endpoints.instance
    service = next(c for c in body["checks"] if c["name"] == "service")
    assert service["verdict"] == "info" and "ghostlight service start" in service["fix"]
    endpoints.ensure_private_dirs()
    endpoints.edge_socket.mkdir()  # something in the socket's place: a real fault
    assert await doctor(endpoints, as_json=True) == 1
    body = json.loads(capsys.readouterr().out)
    assert body["ok"] is False
    service = next(c for c in body["checks"] if c["name"] == "service")
    assert service["verdict"] == "fail" and "ghostlight service start" in service["fix"]
    assert await doctor(endpoints) == 1
    text = capsys.readouterr().out
    assert f"[FAIL] service: down: {endpoints.edge_socket} is a directory" in text
    assert f"fix: remove it (`rm -r {endpoints.edge_socket}`), then `ghostlight service start" in text
    assert "verdict: BROKEN," in text


def test_an_open_directory_is_closed_with_700_not_600(tmp_path: Path) -> None:
    from ghostlight_trio.cli.doctor_checks import private_file

    folder = tmp_path / "run"
    folder.mkdir(mode=0o755)
    folder.chmod(0o755)
    check = private_file(
        "service", "runtime directory", folder, kind="directory", required=True, missing_hint="x"
    )
    assert check.verdict == "fail" and check.fix == f"chmod 700 {folder}"
