"""Shared fixtures: every test that touches endpoints gets its own private instance."""

from __future__ import annotations

import os
import shutil
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from edge.schema_oracle import check_recording

from ghostlight_trio.cli.mcp_client import WIRE_LOG_ENV
from ghostlight_trio.transport.endpoints import Endpoints


@pytest.fixture
def instance_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, str]]:
    """A private instance: its own runtime dir, data dir and name, exported to the environment.

    The runtime dir is a short one of its own, removed afterwards: below pytest's long
    ``tmp_path`` the socket paths would not fit, and every test would leave the short-path
    fallback directory behind in the temp dir."""
    runtime = Path(tempfile.mkdtemp(prefix="glt-test-"))
    values = {
        "GHOSTLIGHT_INSTANCE": "t" + uuid.uuid4().hex[:10],
        "GHOSTLIGHT_HOME": str(tmp_path / "home"),
        "XDG_RUNTIME_DIR": str(runtime),
    }
    for key, value in values.items():
        monkeypatch.setenv(key, value)
    try:
        yield {**os.environ, **values}
    finally:
        shutil.rmtree(runtime, ignore_errors=True)


@pytest.fixture
def endpoints(instance_env: dict[str, str]) -> Endpoints:
    return Endpoints.for_instance()


@pytest.fixture
def set_up_instance(endpoints: Endpoints) -> Endpoints:
    """The private instance as a service start or ``install`` leaves it (its directories made),
    for a command that acts only on an instance that exists."""
    endpoints.ensure_private_dirs()
    return endpoints


@pytest.fixture(autouse=True)
def connector_wire(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Path]:
    """Every ``McpClient`` conversation of the test, in this process or a command it runs (the
    demo), is recorded here (``WIRE_LOG_ENV``); afterwards each line the connector wrote is held
    to the official schema of its revision, and a mismatch fails the test."""
    directory = tmp_path_factory.getbasetemp() / "wire" / uuid.uuid4().hex
    monkeypatch.setenv(WIRE_LOG_ENV, str(directory))
    yield directory
    for log in sorted(directory.glob("*.wire")):
        check_recording(log)


@pytest.fixture(scope="session", autouse=True)
def _no_stray_services(tmp_path_factory: pytest.TempPathFactory):
    """After the run, no Ghostlight process started for a test instance may outlive it.

    A process winding down (a native host whose browser the last test just stopped) gets a
    short grace to exit on its own; what is still there after it is reported and killed."""
    yield
    base = str(tmp_path_factory.getbasetemp())
    deadline = time.monotonic() + STRAY_GRACE
    while (strays := _test_instance_processes(base)) and time.monotonic() < deadline:
        time.sleep(0.1)
    for pid in strays:
        try:
            os.kill(pid, 9)
        except OSError:
            pass
    if strays:
        import warnings

        lines = [f"{pid}: {cmdline}" for pid, cmdline in strays.items()]
        warnings.warn("stray processes outlived the tests:\n" + "\n".join(lines), stacklevel=1)


STRAY_GRACE = 3.0


def _test_instance_processes(base: str) -> dict[int, str]:
    """Ghostlight processes (pid -> command line) whose GHOSTLIGHT_HOME is under ``base``."""
    found = {}
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit() or int(proc.name) == os.getpid():
            continue
        try:
            environ = (proc / "environ").read_bytes().split(b"\0")
            cmdline = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        home = next((v[len(b"GHOSTLIGHT_HOME="):] for v in environ if v.startswith(b"GHOSTLIGHT_HOME=")), b"")
        if "ghostlight" in cmdline and home.decode(errors="replace").startswith(base):
            found[int(proc.name)] = cmdline
    return found
