"""Process harness for edge tests: an isolated instance, its service, and connector processes.

The service is the real one (``python -m ghostlight_trio service --keep-warm``) when it is
installed, else the fake in ``fake_service.py``; ``GHOSTLIGHT_EDGE_SERVICE=real|fake`` forces one.
"""

from __future__ import annotations

import atexit
import functools
import json
import os
import queue
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any

from .schema_oracle import SchemaOracle

HERE = Path(__file__).resolve().parent
PYTHON = sys.executable
META = (
    '{"io.modelcontextprotocol/protocolVersion":"2026-07-28",'
    '"io.modelcontextprotocol/clientCapabilities":{}}'
)
INIT = '{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}'


@functools.cache
def real_service_available() -> bool:
    try:
        done = subprocess.run(
            [PYTHON, "-m", "ghostlight_trio", "service", "--help"],
            capture_output=True,
            timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


@functools.cache
def browser_available() -> bool:
    """Whether a managed browser can run here: the extension built and a Chromium installed."""
    from ghostlight_trio.browser import managed
    from ghostlight_trio.browser.discovery import installed_browsers

    built = (managed.default_extension_dir() / "manifest.json").is_file()
    return built and bool(installed_browsers())


def service_kind() -> str:
    forced = os.environ.get("GHOSTLIGHT_EDGE_SERVICE", "")
    if forced in ("real", "fake"):
        return forced
    return "real" if real_service_available() else "fake"


class Instance:
    """One named instance with private GHOSTLIGHT_HOME and XDG_RUNTIME_DIR."""

    def __init__(self, root: Path, *, kind: str | None = None) -> None:
        self.name = "edge-" + uuid.uuid4().hex[:10]
        self.home = root / "home"
        # A short runtime dir of its own (removed when the run ends): below a long ``root`` the
        # socket paths would not fit, and the short-path fallback would stay in the temp dir.
        self.runtime = Path(tempfile.mkdtemp(prefix="glt-edge-"))
        atexit.register(shutil.rmtree, self.runtime, True)
        self.home.mkdir(parents=True, exist_ok=True)
        self.kind = kind or service_kind()
        self.service: subprocess.Popen[bytes] | None = None
        self.browser: subprocess.Popen[bytes] | None = None
        self.env = dict(os.environ)
        self.env.update(
            GHOSTLIGHT_HOME=str(self.home),
            XDG_RUNTIME_DIR=str(self.runtime),
            GHOSTLIGHT_INSTANCE=self.name,
            PYTHONUNBUFFERED="1",
        )
        self.env.pop("GHOSTLIGHT_MCP_PAGE_SIZE", None)

    @property
    def socket_path(self) -> Path:
        from ghostlight_trio.transport.endpoints import Endpoints

        saved = {k: os.environ.get(k) for k in ("GHOSTLIGHT_HOME", "XDG_RUNTIME_DIR")}
        os.environ["GHOSTLIGHT_HOME"] = str(self.home)
        os.environ["XDG_RUNTIME_DIR"] = str(self.runtime)
        try:
            return Endpoints.for_instance(self.name).edge_socket
        finally:
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value

    def service_command(self) -> list[str]:
        if self.kind == "real":
            return [
                PYTHON,
                "-m",
                "ghostlight_trio",
                "service",
                "--instance",
                self.name,
                "--keep-warm",
            ]
        return [PYTHON, str(HERE / "fake_service.py"), "--instance", self.name]

    def start_service(self, **extra_env: str) -> None:
        env = dict(self.env, **extra_env)
        self.service = subprocess.Popen(
            self.service_command(),
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=open(self.home / "service.stderr", "ab"),  # noqa: SIM115
            start_new_session=True,
        )
        self.wait_for_socket()

    def wait_for_socket(self, timeout: float = 15.0) -> None:
        deadline = time.monotonic() + timeout
        path = str(self.socket_path)
        while time.monotonic() < deadline:
            probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                probe.connect(path)
                return
            except OSError:
                time.sleep(0.05)
            finally:
                probe.close()
        raise TimeoutError(f"service socket {path} did not appear")

    @property
    def manifest_path(self) -> Path:
        """The user policy the real service hot-reloads (used to move its catalog)."""
        return self.home / "policy.json"

    def write_allow_all_manifest(self, version: int) -> None:
        grant = {
            "id": "all",
            "hosts": {"allow": ["*"]},
            "allowed": ["read", "action", "write", "execute"],
        }
        manifest = {"schema": 3, "name": "transcripts", "version": str(version), "grants": [grant]}
        self.manifest_path.write_text(json.dumps(manifest))

    def change_catalog(self) -> None:
        """Make the service announce a new catalog generation.

        The fake service does it on SIGUSR1; the real one when its policy file changes (it
        re-reads the file every second and always moves the generation on a reload).
        """
        if self.kind == "real":
            self._manifest_version = getattr(self, "_manifest_version", 1) + 1
            self.write_allow_all_manifest(self._manifest_version)
        else:
            self.signal_service(signal.SIGUSR1)

    def signal_service(self, signum: int) -> None:
        assert self.service is not None
        self.service.send_signal(signum)

    def stop_service(self) -> None:
        if self.service is not None and self.service.poll() is None:
            self.service.send_signal(signal.SIGTERM)
            _wait_or_kill(self.service, 5)
        self.service = None

    def launch_browser(self) -> None:
        """A managed headless Chromium with the real extension and native host, connected to
        the running (real) service (``browser_host.py``); returns once it is."""
        self.browser = subprocess.Popen(
            [PYTHON, str(HERE / "browser_host.py")],
            env=self.env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=open(self.home / "browser_host.stderr", "ab"),  # noqa: SIM115
        )
        assert self.browser.stdout is not None
        if self.browser.stdout.readline() != b"ready\n":
            self.stop_browser()
            log = (self.home / "browser_host.stderr").read_text(errors="replace")
            raise RuntimeError(f"the managed browser did not connect:\n{log}")

    def stop_browser(self) -> None:
        if self.browser is None:
            return
        assert self.browser.stdin is not None
        self.browser.stdin.close()  # it closes the browser and exits
        _wait_or_kill(self.browser, 20)
        self.browser = None

    def stop_launched_services(self) -> None:
        """Stop services a connector started for this instance (matched by its unique name)."""
        found = subprocess.run(
            ["pgrep", "-f", f"ghostlight_trio service --instance {self.name}"],
            capture_output=True,
            text=True,
        )
        for pid in found.stdout.split():
            try:
                os.kill(int(pid), signal.SIGTERM)
            except ProcessLookupError:
                pass

    def kill_service(self) -> None:
        """SIGKILL the service (and whatever it started in its session)."""
        if self.service is not None:
            try:
                os.killpg(self.service.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.service.wait()
        self.service = None

    def connector_command(self) -> list[str]:
        return [PYTHON, "-m", "ghostlight_mcp_connector", "--instance", self.name]


def _wait_or_kill(process: subprocess.Popen[bytes], seconds: float) -> None:
    try:
        process.wait(seconds)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


class Connector:
    """A running connector with a line reader on stdout."""

    def __init__(self, instance: Instance, **extra_env: str) -> None:
        env = dict(instance.env, **extra_env)
        self.process = subprocess.Popen(
            instance.connector_command(),
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.lines: queue.Queue[bytes | None] = queue.Queue()
        self.stderr = bytearray()
        self.oracle = SchemaOracle()
        """Every line the connector writes is held to the official schema of its revision."""
        threading.Thread(target=self._pump_stdout, daemon=True).start()
        threading.Thread(target=self._pump_stderr, daemon=True).start()

    def _pump_stdout(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def _pump_stderr(self) -> None:
        assert self.process.stderr is not None
        for chunk in self.process.stderr:
            self.stderr += chunk

    def send_raw(self, data: bytes) -> None:
        assert self.process.stdin is not None
        self.oracle.client_line(data)
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def send(self, message: dict[str, Any] | str) -> None:
        text = message if isinstance(message, str) else json.dumps(message)
        self.send_raw(text.encode() + b"\n")

    def read_line(self, timeout: float = 15.0) -> bytes:
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(
                f"no output within {timeout} s; stderr:\n{self.stderr.decode(errors='replace')}"
            ) from None
        if line is None:
            self.lines.put(None)
            raise AssertionError(
                f"connector stdout closed; stderr:\n{self.stderr.decode(errors='replace')}"
            )
        self.oracle.server_line(line)
        return line

    def read(self, timeout: float = 15.0) -> dict[str, Any]:
        return json.loads(self.read_line(timeout))

    def read_until(
        self, predicate: Any, timeout: float = 15.0
    ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """Read until a message matches; return it and the messages skipped before it."""
        skipped = []
        deadline = time.monotonic() + timeout
        while True:
            message = self.read(max(0.01, deadline - time.monotonic()))
            if predicate(message):
                return message, skipped
            skipped.append(message)

    def expect_quiet(self, seconds: float) -> None:
        try:
            line = self.lines.get(timeout=seconds)
        except queue.Empty:
            return
        raise AssertionError(f"unexpected output: {line!r}")

    def close_stdin(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()

    def wait_exit(self, timeout: float = 10.0) -> int:
        """A bound that catches a hang, generous enough for a loaded 2-core machine."""
        return self.process.wait(timeout)

    def terminate(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


def normalise(line: str) -> str:
    """Replace the values the service or connector mint with placeholders: workspace ids, tab
    ids, tab group ids, page-content fence nonces, list cursors (they name a catalog
    generation), times. Nothing else is loosened."""
    line = re.sub(r'"workspaceId":"[^"]*"', '"workspaceId":"<id>"', line)
    line = re.sub(r"\(tab group \d+\)", "(tab group <group>)", line)
    line = re.sub(r"(GHOSTLIGHT PAGE CONTENT) [0-9a-f]{32} ", r"\1 <nonce> ", line)
    line = re.sub(r"workspaceId: \S+", "workspaceId: <id>", line)
    line = re.sub(r'"(tabId|activeTabId)":-?\d+', r'"\1":"<tab>"', line)
    line = re.sub(r'"nextCursor":"[^"]*"', '"nextCursor":"<cursor>"', line)
    return re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)", "<time>", line)
