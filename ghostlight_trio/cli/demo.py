"""``ghostlight demo``: the first thing to run.

Brings up the service and a managed headless Chromium for a private ``demo`` instance, then
drives a real MCP session through ``ghostlight-mcp-connector`` exactly as an agent's client
would: open a tab, navigate to a page served on loopback, read it back, type a name into its
form and click its button, and (when the screenshot tool is available) save a screenshot.

Everything it starts, it stops again: at the end, on a failure and on Ctrl-C, each within a
bounded time.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

import trio

from ..browser import managed
from ..files.safe import open_private
from ..transport.endpoints import HOME_ENV, INSTANCE_ENV, Endpoints
from .background import ensure_service
from .browser_command import connected_report, launched_loader
from .demo_guard import DemoLock, switch_on, take_demo_lock
from .demo_page import DemoPageServer
from .demo_session import AgentSession
from .mcp_client import McpClient, McpError
from .screen import headless_here
from .started import Started

T = TypeVar("T")
STEP_TIMEOUT = 60.0
"""The longest any one step may take (the browser's own connect wait is shorter)."""
CONNECTOR_LOG = "demo-connector.log"


class _Steps:
    """Numbered, timed progress lines; each step within ``STEP_TIMEOUT``."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.number = 0

    async def run(self, title: str, action: Callable[[], Awaitable[T]]) -> T:
        self.number += 1
        print(f"[{self.number}/{self.total}] {title} ...", flush=True)
        started = time.perf_counter()
        with trio.fail_after(STEP_TIMEOUT):
            result = await action()
        print(f"      done in {(time.perf_counter() - started) * 1000:.0f} ms", flush=True)
        return result


def _unwritable(out: str) -> str | None:
    """Why the screenshot could not be written to ``out``, or None."""
    folder = Path(out).absolute().parent
    if not folder.is_dir() or not os.access(folder, os.W_OK | os.X_OK):
        return f"{folder} is no directory you can write to"
    return None


def _refusal(endpoints: Endpoints, out: str) -> tuple[str, int] | DemoLock:
    """Why the demo cannot start (said before anything starts), or the lock it runs under."""
    problem = _unwritable(out)
    if problem is not None:
        return f"cannot write {out}: {problem}", 2
    switch = switch_on(endpoints)
    if switch is not None:
        return switch, 1
    lock = take_demo_lock(endpoints)
    return (lock, 1) if isinstance(lock, str) else lock


async def demo(endpoints: Endpoints, browser_path: str | None, headless: bool, out: str) -> int:
    lock = _refusal(endpoints, out)
    if isinstance(lock, tuple):
        print(f"ghostlight demo: {lock[0]}", file=sys.stderr)
        return lock[1]
    headless = headless_here(headless)
    page = DemoPageServer()
    started = Started()
    finished = False
    print(f"Ghostlight demo (instance '{endpoints.instance}')")
    try:
        await _run(endpoints, started, page.url, browser_path, headless, out)
        finished = True
    except (managed.ManagedBrowserError, RuntimeError, TimeoutError, McpError, EOFError) as exc:
        print(f"ghostlight demo: {exc}", file=sys.stderr)
        return 1
    finally:
        await started.stop(say=not finished)
        page.close()
        lock.release()
    print("Demo finished: the agent read a page and acted on it, only in its own tab group;")
    print("nothing else was touched. The demo's browser and service are stopped again.")
    print("Next: `ghostlight install` registers Ghostlight with your MCP client and browser.")
    return 0


async def _run(
    endpoints: Endpoints, started: Started, page_url: str, browser_path: str | None,
    headless: bool, out: str,
) -> None:  # fmt: skip
    steps = _Steps(total=6)
    kind = "headless" if headless else "windowed"

    async def start_service() -> None:
        started.service = await ensure_service(endpoints)

    loader = launched_loader(endpoints, started, headless, browser_path)
    await steps.run("Starting the Ghostlight service", start_service)
    browser = await steps.run(f"Launching a managed {kind} Chromium with the extension", loader.start)
    _, report = await steps.run(
        "Waiting for the extension to connect through the native host",
        lambda: connected_report(endpoints, loader, browser),
    )
    print(f"      | browser slot {report.browsers[-1].slot} connected")
    client = await steps.run(
        "Connecting an MCP client through ghostlight-mcp-connector",
        lambda: connect_connector(endpoints),
    )
    async with client:
        tools = await client.list_tools()
        names = [tool["name"] for tool in tools]
        print(f"      | {len(tools)} tools: {', '.join(names)}")
        agent = AgentSession(client, endpoints)
        await steps.run(
            "Opening a tab, navigating to a loopback page and reading it",
            lambda: agent.read(page_url, names),
        )

        async def act() -> None:
            await agent.act()
            if "computer" in names:
                await agent.screenshot(out)

        await steps.run("Typing a name into the page's field and clicking Greet", act)


async def connect_connector(endpoints: Endpoints) -> McpClient:
    """The connector as an MCP client starts it, its log lines kept in the instance's
    directory rather than mixed into the demo's output."""
    env = {**os.environ, INSTANCE_ENV: endpoints.instance}
    if HOME_ENV in os.environ:
        env[HOME_ENV] = os.environ[HOME_ENV]
    log = open_private(endpoints.data_dir / CONNECTOR_LOG, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    try:
        return await McpClient.spawn(
            [sys.executable, "-m", "ghostlight_mcp_connector"], env=env, stderr=log
        )
    finally:
        os.close(log)
