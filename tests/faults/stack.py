"""A private Ghostlight instance for one fault: service process, loopback pages, managed browser,
connector processes and the instance's audit file, all real executables."""

from __future__ import annotations

import json
import os
import shutil
import signal
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Iterable, Iterator
from contextlib import AbstractContextManager, asynccontextmanager, contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from unittest import mock

import trio

from ghostlight_trio.browser import managed
from ghostlight_trio.browser.discovery import installed_browsers
from ghostlight_trio.cli.background import ensure_service
from ghostlight_trio.cli.control import query_status, wait_for_browser
from ghostlight_trio.cli.mcp_client import REVISION_2025_11_25, McpClient, McpError, result_text
from ghostlight_trio.transport.endpoints import Endpoints

SLOW_SECONDS = 6.0
PAGE = "<title>Fault page</title><h1>fault</h1><button id='b' onclick='window.n=(window.n||0)+1'>b</button>"


def browser_available() -> bool:
    return (managed.default_extension_dir() / "manifest.json").is_file() and bool(installed_browsers())


class Pages:
    """A loopback HTTP server that counts every hit (a duplicated navigation shows up here)."""

    def __init__(self) -> None:
        self.hits: Counter[str] = Counter()
        pages = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
                pages.hits[self.path] += 1
                if self.path.startswith("/slow"):
                    time.sleep(SLOW_SECONDS)
                data = PAGE.encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                try:
                    self.wfile.write(data)
                except OSError:
                    pass

            def log_message(self, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._server.block_on_close = False
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


class Instance:
    """One isolated instance: its own runtime dir, data dir and name."""

    def __init__(self, base: Path) -> None:
        runtime = base / "run"
        runtime.mkdir(mode=0o700)
        self.base = base
        self.env = {
            **os.environ,
            "GHOSTLIGHT_INSTANCE": "f" + uuid.uuid4().hex[:10],
            "GHOSTLIGHT_HOME": str(base / "home"),
            "XDG_RUNTIME_DIR": str(runtime),
        }
        with _environment(self.env):
            self.endpoints = Endpoints.for_instance()
        self.service: Any = None
        self.browser: managed.ManagedBrowser | None = None
        self.pages = Pages()

    async def start_service(self, *extra: str) -> None:
        with _environment(self.env):
            self.service = await ensure_service(self.endpoints, "--keep-warm", *extra)

    async def start_browser(self, *extra_args: str) -> managed.ManagedBrowser:
        with _environment(self.env):
            self.browser = await managed.launch(
                self.endpoints, headless=True, extra_args=list(extra_args)
            )
        await wait_for_browser(self.endpoints, within=40, launched=self.browser)
        return self.browser

    async def status(self) -> Any:
        return await query_status(self.endpoints)

    def connector(self, era: str = REVISION_2025_11_25, name: str = "faults") -> Any:
        return McpClient.spawn(
            [sys.executable, "-m", "ghostlight_mcp_connector"], env=self.env, era=era, client_name=name
        )

    def audit(self) -> list[dict[str, Any]]:
        """The call records of the audit file (event records such as hold or resume skipped),
        each with ``tool`` naming the operation."""
        try:
            lines = self.endpoints.audit_file.read_text().splitlines()
        except FileNotFoundError:
            return []
        records = [json.loads(line) for line in lines if line.strip()]
        calls = [r for r in records if "event" not in r]
        for record in calls:
            record.setdefault("tool", record.get("operation"))
        return calls

    async def aclose(self) -> None:
        if self.browser is not None:
            with trio.move_on_after(15):
                await self.browser.aclose()
        if self.service is not None and self.service.poll() is None:
            self.service.terminate()
            try:
                self.service.wait(timeout=15)
            except Exception:
                self.service.kill()
        _kill_instance_processes(self.env["GHOSTLIGHT_INSTANCE"])
        self.pages.close()


def _environment(env: dict[str, str]) -> AbstractContextManager[Any]:
    """This process pointed at ``env``'s instance until the block ends."""
    keys = ("GHOSTLIGHT_INSTANCE", "GHOSTLIGHT_HOME", "XDG_RUNTIME_DIR")
    return mock.patch.dict(os.environ, {key: env[key] for key in keys})


def processes_with(needle: str) -> list[int]:
    """Pids whose command line or environment mentions ``needle`` (this user's processes)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
            environ = (entry / "environ").read_bytes()
        except OSError:
            continue
        if needle.encode() in cmdline or needle.encode() in environ:
            found.append(int(entry.name))
    return found


def command_of(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def processes_under(home: Path) -> dict[int, str]:
    """Live processes started under ``home`` (named in their command line or environment)."""
    return {pid: command for pid in processes_with(str(home)) if (command := command_of(pid))}


def left_under(home: Path, settle: float) -> dict[int, str]:
    """The processes under ``home`` still there after ``settle`` seconds of grace (a process
    already stopped must still leave /proc: its parent reaps it)."""
    deadline = time.monotonic() + settle
    while (found := processes_under(home)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return found


def kill_all(pids: Iterable[int]) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split()[2] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False


def _kill_instance_processes(instance: str) -> None:
    for pid in processes_with(instance):
        try:
            os.kill(pid, 9)
        except OSError:
            pass


@contextmanager
def instance() -> Iterator[Instance]:
    base = Path(tempfile.mkdtemp(prefix="glt-fault-", dir="/tmp"))
    made = Instance(base)
    try:
        yield made
    finally:
        shutil.rmtree(base, ignore_errors=True)


@asynccontextmanager
async def open_instance() -> AsyncIterator[Instance]:
    """``instance()`` whose processes (browser, service, connectors) are closed on the way out."""
    with instance() as made:
        try:
            yield made
        finally:
            await made.aclose()


async def call(client: McpClient, tool: str, arguments: dict[str, Any], within: float = 90) -> Any:
    """One tools/call: the result, or the McpError; raises TooSlow past ``within``."""
    with trio.fail_after(within):
        try:
            return await client.call_tool(tool, arguments)
        except McpError as exc:
            return exc


async def call_until_ok(
    client: McpClient, tool: str, *, within: float, pause: float, arguments: dict[str, Any] | None = None
) -> Any:
    """Repeat one tools/call until it is ok or ``within`` seconds pass: the last result (None if
    no call finished in time)."""
    later = None
    with trio.move_on_after(within):
        while True:
            later = await call(client, tool, arguments or {})
            if summary(later) == "ok":
                break
            await trio.sleep(pause)
    return later


def summary(result: Any) -> str:
    """How a result reads, for the table: ok, error text, or the JSON-RPC error."""
    if isinstance(result, McpError):
        return f"json-rpc error {result.error.get('code')}"
    if isinstance(result, BaseException):
        return type(result).__name__
    if result.get("isError"):
        text = result_text(result).lower()
        for word in ("outcome unknown", "may or may not", "may have completed", "not sent",
                     "nothing was sent", "cancelled", "not connected", "no browser"):
            if word in text:
                return f"isError ({word})"
        return "isError"
    return "ok"


def is_false_success(result: Any) -> bool:
    return not isinstance(result, BaseException) and not result.get("isError")
