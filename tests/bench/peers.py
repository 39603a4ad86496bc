"""Plumbing shared by the ``edge``, ``navigate``, ``snapshot`` and ``peers`` sections.

* Peer MCP servers (``@playwright/mcp``, ``chrome-devtools-mcp``) installed with npm into
  ``tests/bench/node`` and run only as processes, each in its own session so that anything
  left behind can be ended by that process group's id.
* Timed spawning of an MCP server with our own small client (``McpClient``), with the
  server's stderr sent to a log file so the tables stay readable; a pool that closes a
  contest's sessions and logs together.
* The instance's managed headless Chromium, connected before a contest starts.
* A loopback page server whose ``<title>`` names the run, so a result proves it is fresh.
* Each contender's way to open a tab or page and navigate it, its answer checked.
* Pointing this process at an isolated Ghostlight instance for the duration of a section.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, asynccontextmanager, contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import IO, Any
from unittest import mock
from urllib.parse import parse_qs, urlsplit

import trio

from ghostlight_trio.browser import managed
from ghostlight_trio.cli.control import wait_for_browser
from ghostlight_trio.cli.mcp_client import (
    REVISION_2025_11_25,
    REVISION_2026_07_28,
    McpClient,
    result_text,
)
from ghostlight_trio.transport.endpoints import Endpoints

NODE_DIR = Path(__file__).parent / "node"
MODULES = NODE_DIR / "node_modules"
CHROMIUM = "/usr/bin/chromium"
PLAYWRIGHT_CLI = MODULES / "@playwright" / "mcp" / "cli.js"
CDM_CLI = MODULES / "chrome-devtools-mcp" / "build" / "src" / "bin" / "chrome-devtools-mcp.js"
INSTANCE_KEYS = ("GHOSTLIGHT_INSTANCE", "GHOSTLIGHT_HOME", "XDG_RUNTIME_DIR")
CLIENT_INFO = {"name": "ghostlight-bench", "version": "1"}


# -- peers ------------------------------------------------------------------------------------


def _installed_version(package: str) -> str | None:
    manifest = MODULES / package / "package.json"
    if not manifest.is_file():
        return None
    import json

    return str(json.loads(manifest.read_text()).get("version"))


def _stale() -> list[str]:
    """The pinned peers whose installed version is not the one package.json names."""
    import json

    pins = json.loads((NODE_DIR / "package.json").read_text()).get("dependencies", {})
    return [name for name, version in pins.items() if _installed_version(name) != version]


def ensure_peers() -> str | None:
    """Install the pinned peers into tests/bench/node if needed (missing, or another version
    than package.json pins); None when ready, else why not."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None:
        return "node is not on PATH"
    if PLAYWRIGHT_CLI.is_file() and CDM_CLI.is_file() and not _stale():
        return None
    if npm is None:
        return "npm is not on PATH and tests/bench/node/node_modules is missing"
    command = [npm, "ci", "--no-audit", "--no-fund", "--silent"]
    if not (NODE_DIR / "package-lock.json").is_file():
        command[1] = "install"
    print(f"  (installing peers: {' '.join(command[1:])} in {NODE_DIR})", flush=True)
    try:
        done = subprocess.run(command, cwd=NODE_DIR, capture_output=True, text=True, timeout=300)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"npm failed: {exc}"
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return f"npm exited {done.returncode}: {last}"
    if not (PLAYWRIGHT_CLI.is_file() and CDM_CLI.is_file()):
        return "npm finished but the peer entry points are missing"
    if _stale():
        return f"npm finished but {', '.join(_stale())} is not the pinned version"
    return None


def peer_label(package: str) -> str:
    return f"{package}@{_installed_version(package) or '?'}"


def playwright_argv(output_dir: Path) -> list[str]:
    """@playwright/mcp launching /usr/bin/chromium headless with an in-memory profile."""
    return [
        shutil.which("node") or "node",
        str(PLAYWRIGHT_CLI),
        "--headless",
        "--isolated",
        "--browser",
        "chromium",
        "--executable-path",
        CHROMIUM,
        "--no-sandbox",
        "--output-dir",
        str(output_dir),
    ]


def cdm_argv() -> list[str]:
    """chrome-devtools-mcp launching /usr/bin/chromium headless with a temporary profile, offline."""
    return [
        shutil.which("node") or "node",
        str(CDM_CLI),
        "--headless",
        "--isolated",
        "--executablePath",
        CHROMIUM,
        "--chromeArg=--no-sandbox",
        "--no-usage-statistics",
        "--no-performance-crux",
    ]


def peer_env() -> dict[str, str]:
    return {
        **os.environ,
        "CHROME_DEVTOOLS_MCP_NO_UPDATE_CHECKS": "1",
        "CHROME_DEVTOOLS_MCP_NO_USAGE_STATISTICS": "1",
    }


def peer_launches(logs: Path) -> list[tuple[list[str], dict[str, str]]]:
    """argv and env of the three peers, in contest order: @playwright/mcp, the same with its
    post-action settle wait removed, chrome-devtools-mcp."""
    env = peer_env()
    return [
        (playwright_argv(logs / "pw-out"), env),
        ([*playwright_argv(logs / "pw-fast-out"), "--timeout-settle", "0"], env),
        (cdm_argv(), env),
    ]


def connector_argv() -> list[str]:
    """The installed console script, as an MCP client configuration would name it."""
    script = Path(sys.executable).parent / "ghostlight-mcp-connector"
    if script.is_file():
        return [str(script)]
    found = shutil.which("ghostlight-mcp-connector")
    return [found] if found else [sys.executable, "-m", "ghostlight_mcp_connector"]


# -- timed MCP sessions ---------------------------------------------------------------------


class Session:
    """An MCP server process driven by ``McpClient``; ``ready_s`` is spawn → first answer."""

    def __init__(self, client: McpClient, process: trio.Process, ready_s: float) -> None:
        self.client = client
        self.process = process
        self.ready_s = ready_s

    async def aclose(self) -> None:
        with trio.CancelScope(shield=True):
            await self.client.aclose()
            # The peer ran in its own session: end whatever of that group is still alive.
            try:
                os.killpg(self.process.pid, signal.SIGTERM)
            except (ProcessLookupError, PermissionError):
                pass


async def open_session(
    argv: Sequence[str],
    *,
    env: Mapping[str, str],
    stderr: IO[bytes] | int = subprocess.DEVNULL,
    era: str = REVISION_2025_11_25,
) -> Session:
    """Spawn ``argv`` and complete the opening exchange, timing spawn → answer.

    2025-11-25: ``initialize`` answered (``notifications/initialized`` is sent after the clock
    stops). 2026-07-28: the first ``server/discover`` answered.
    """
    started = time.perf_counter()
    process = await trio.lowlevel.open_process(
        list(argv),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=stderr,
        env=dict(env),
        start_new_session=True,
    )
    client = McpClient(process, era)
    try:
        if era == REVISION_2026_07_28:
            await client.request("server/discover")
            ready = time.perf_counter() - started
        else:
            await client.request(
                "initialize",
                {"protocolVersion": REVISION_2025_11_25, "capabilities": {}, "clientInfo": CLIENT_INFO},
            )
            ready = time.perf_counter() - started
            await client.notify("notifications/initialized")
    except BaseException:
        await Session(client, process, 0.0).aclose()
        raise
    return Session(client, process, ready)


class SessionPool:
    """A contest's MCP sessions, each server's stderr in its own log file; leaving the ``async
    with`` block ends them all and closes the logs, even when the contest is being cancelled."""

    def __init__(self) -> None:
        self._sessions: list[Session] = []
        self._logs: list[IO[bytes]] = []

    async def open(
        self, argv: Sequence[str], env: Mapping[str, str], log: Path, era: str = REVISION_2025_11_25
    ) -> Session:
        stderr = log.open("ab")
        self._logs.append(stderr)
        session = await open_session(argv, env=env, stderr=stderr, era=era)
        self._sessions.append(session)
        return session

    async def __aenter__(self) -> SessionPool:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        with trio.CancelScope(shield=True):
            for session in self._sessions:
                await session.aclose()
        for stderr in self._logs:
            stderr.close()


@asynccontextmanager
async def managed_browser() -> AsyncIterator[managed.ManagedBrowser]:
    """This instance's managed headless Chromium (/usr/bin/chromium), its extension connected
    to the service before the block runs; closed after it."""
    endpoints = Endpoints.for_instance()
    browser = await managed.launch(endpoints, headless=True, browser_path=CHROMIUM)
    try:
        await wait_for_browser(endpoints, within=managed.CONNECT_TIMEOUT, launched=browser)
        yield browser
    finally:
        with trio.CancelScope(shield=True):
            await browser.aclose()


# -- loopback page --------------------------------------------------------------------------


def page_title(run: int | str) -> str:
    return f"Ghostlight bench page {run}"


class _Page(BaseHTTPRequestHandler):
    pages: Mapping[str, bytes] = {}
    """More pages by path (``loopback_page(pages=...)``); any other path is the bench page."""

    def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
        parts = urlsplit(self.path)
        run = parse_qs(parts.query).get("run", ["0"])[0]
        body = self.pages.get(parts.path) or (
            "<!doctype html><html><head><meta charset=utf-8>"
            f"<title>{page_title(int(run) if run.isdigit() else 0)}</title></head>"
            "<body><h1>Bench</h1><p>A small static page served on loopback.</p>"
            "<a href='#x'>link</a> <button>button</button></body></html>"
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        try:
            self.wfile.write(body)
        except OSError:
            pass

    def log_message(self, *args: Any) -> None:
        pass


@contextmanager
def loopback_page(pages: Mapping[str, str] | None = None) -> Iterator[str]:
    """Serve the bench page; yields its base URL (append ``?run=N``). ``pages``: more pages by
    path (``/shop``: served at the same origin, the base URL's path replaced)."""
    encoded = {path: html.encode() for path, html in (pages or {}).items()}
    server = ThreadingHTTPServer(("127.0.0.1", 0), type("_Pages", (_Page,), {"pages": encoded}))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/bench"
    finally:
        server.shutdown()
        server.server_close()


# -- isolated instance in this process -------------------------------------------------------


def instance_environ(env: Mapping[str, str]) -> AbstractContextManager[Any]:
    """Point this process (Endpoints, the managed browser's host wrapper) at ``env``'s instance,
    until the block ends."""
    return mock.patch.dict(os.environ, {key: env[key] for key in INSTANCE_KEYS})


# -- each contender's tab or page, and its navigation ---------------------------------------

_PW_TITLE = re.compile(r"^- Page Title: (.*)$", re.MULTILINE)
CDM_PAGE = re.compile(r"^(\d+): (.*?)(?: \(([^()]*)\))?( \[selected\])?$")
"""A page's line under chrome-devtools-mcp's "## Pages": id, title, (url), [selected]."""

Navigate = Callable[[str], Awaitable[str]]
"""Load a URL; the title the answer reports."""


class BenchError(RuntimeError):
    """A contender could not be set up or answered wrongly."""


def checked(result: dict[str, Any], who: str) -> dict[str, Any]:
    """``result``, unless the tool answered an error: then ``BenchError``."""
    if result.get("isError"):
        raise BenchError(f"{who} answered an error: {result_text(result)[:300]}")
    return result


async def ghostlight_tab(client: McpClient) -> int:
    """A new tab of Ghostlight's workspace (``tabs_create_mcp``)."""
    created = checked(await client.call_tool("tabs_create_mcp", {}), "tabs_create_mcp")
    tab = (created.get("structuredContent") or {}).get("tabId")
    if tab is None:
        raise BenchError("tabs_create_mcp returned no tab id")
    return int(tab)


async def cdm_page(client: McpClient) -> int:
    """chrome-devtools-mcp's selected page (``list_pages``)."""
    listing = result_text(checked(await client.call_tool("list_pages", {}), "list_pages"))
    pages = [m for m in map(CDM_PAGE.match, listing.splitlines()) if m]
    if not pages:
        raise BenchError(f"list_pages gave no page: {listing[:200]!r}")
    return int(next((m for m in pages if m.group(4)), pages[0]).group(1))


def ghostlight_navigate(client: McpClient, tab: int) -> Navigate:
    """``navigate{url, tabId}``; the title is ``structuredContent.title``."""

    async def navigate(url: str) -> str:
        result = checked(await client.call_tool("navigate", {"url": url, "tabId": tab}), "navigate")
        return str((result.get("structuredContent") or {}).get("title", ""))

    return navigate


def playwright_navigate(client: McpClient) -> Navigate:
    """``browser_navigate{url}``; the title from the "- Page Title:" line."""

    async def navigate(url: str) -> str:
        answer = await client.call_tool("browser_navigate", {"url": url})
        found = _PW_TITLE.search(result_text(checked(answer, "browser_navigate")))
        return found.group(1).strip() if found else ""

    return navigate


def cdm_navigate(client: McpClient, page: int) -> Navigate:
    """``navigate_page{type: "url", url, pageId}``; the title from the page's line under
    "## Pages"."""

    async def navigate(url: str) -> str:
        result = await client.call_tool("navigate_page", {"type": "url", "url": url, "pageId": page})
        for line in result_text(checked(result, "navigate_page")).splitlines():
            found = CDM_PAGE.match(line)
            if found and int(found.group(1)) == page:
                return found.group(2).strip()
        return ""

    return navigate
