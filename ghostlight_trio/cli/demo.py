"""``ghostlight demo``: the first thing to run.

Brings up the service and a managed headless Chromium for a private ``demo`` instance, then
drives a real MCP session through ``ghostlight-mcp-connector`` exactly as an agent's client
would: open a tab, navigate to a page served on loopback, read it back, and (when the
screenshot tool is available) save a screenshot.
"""

from __future__ import annotations

import base64
import os
import sys
import threading
import time
from collections.abc import Awaitable, Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, TypeVar

import trio

from ..browser import managed
from ..cli.mcp_client import McpClient, McpError, result_text
from ..transport.endpoints import HOME_ENV, INSTANCE_ENV, Endpoints
from .background import ensure_service
from .control import wait_for_browser

T = TypeVar("T")

DEMO_PAGE = """<!doctype html>
<html><head><title>Ghostlight demo page</title></head>
<body>
<h1>Hello from Ghostlight</h1>
<p>This page is served on loopback by <code>ghostlight demo</code>. An agent opened a tab in its
own workspace, navigated here, and is now reading this text.</p>
<form><label>Name <input name="name" value=""></label> <button type="button">Greet</button></form>
</body></html>
"""


class _DemoPage(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
        body = DEMO_PAGE.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


class _Steps:
    """Numbered, timed progress lines."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.number = 0

    async def run(self, title: str, action: Callable[[], Awaitable[T]]) -> T:
        self.number += 1
        print(f"[{self.number}/{self.total}] {title} ...", flush=True)
        started = time.perf_counter()
        result = await action()
        print(f"      done in {(time.perf_counter() - started) * 1000:.0f} ms", flush=True)
        return result


def _show(result: dict[str, Any], limit: int = 600) -> None:
    text = result_text(result)
    marker = "      ! " if result.get("isError") else "      | "
    for line in text[:limit].splitlines():
        print(marker + line)


def _unwritable(out: str) -> str | None:
    """Why the screenshot could not be written to ``out``, or None."""
    folder = Path(out).absolute().parent
    if not folder.is_dir() or not os.access(folder, os.W_OK | os.X_OK):
        return f"{folder} is no directory you can write to"
    return None


async def demo(endpoints: Endpoints, browser_path: str | None, headless: bool, out: str) -> int:
    problem = _unwritable(out)
    if problem is not None:  # said before anything starts, not after a run whose shot is lost
        print(f"ghostlight demo: cannot write {out}: {problem}", file=sys.stderr)
        return 2
    server = ThreadingHTTPServer(("127.0.0.1", 0), _DemoPage)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    page_url = f"http://127.0.0.1:{server.server_address[1]}/"
    steps = _Steps(total=5)
    service = None
    browser = None
    print(f"Ghostlight demo (instance '{endpoints.instance}')")
    try:
        service = await steps.run("Starting the Ghostlight service", lambda: ensure_service(endpoints))
        browser = await steps.run(
            "Launching a managed headless Chromium with the extension",
            lambda: managed.launch(endpoints, headless=headless, browser_path=browser_path),
        )
        running = browser
        report = await steps.run(
            "Waiting for the extension to connect through the native host",
            lambda: wait_for_browser(endpoints, within=managed.CONNECT_TIMEOUT, launched=running),
        )
        print(f"      | browser slot {report.browsers[-1].slot} connected")
        env = {
            **os.environ,
            INSTANCE_ENV: endpoints.instance,
        }
        if HOME_ENV in os.environ:
            env[HOME_ENV] = os.environ[HOME_ENV]
        client = await steps.run(
            "Connecting an MCP client through ghostlight-mcp-connector",
            lambda: McpClient.spawn([sys.executable, "-m", "ghostlight_mcp_connector"], env=env),
        )
        async with client:
            tools = await client.list_tools()
            names = [tool["name"] for tool in tools]
            print(f"      | {len(tools)} tools: {', '.join(names)}")

            async def drive() -> None:
                created = await client.call_tool("tabs_create_mcp", {})
                _show(created)
                tab_id = (created.get("structuredContent") or {}).get("tabId")
                if tab_id is None:
                    raise RuntimeError("tabs_create_mcp returned no tab id")
                navigated = await client.call_tool("navigate", {"url": page_url, "tabId": tab_id})
                _show(navigated)
                if "get_page_text" in names:
                    _show(await client.call_tool("get_page_text", {"tabId": tab_id}))
                else:
                    _show(await client.call_tool("tabs_context_mcp", {}))
                if "computer" in names:
                    shot = await client.call_tool("computer", {"action": "screenshot", "tabId": tab_id})
                    for block in shot.get("content", []):
                        if block.get("type") == "image":
                            try:
                                await trio.Path(out).write_bytes(base64.b64decode(block["data"]))
                            except OSError as exc:  # checked at the start; it changed since
                                raise RuntimeError(f"cannot write {out}: {exc}") from None
                            print(f"      | screenshot written to {out}")
                            break
                    else:
                        _show(shot)

            await steps.run("Opening a tab, navigating to a loopback page and reading it", drive)
        print("Demo finished: the agent worked only in its own tab group; nothing else was touched.")
        return 0
    except (managed.ManagedBrowserError, RuntimeError, TimeoutError, McpError, EOFError) as exc:
        print(f"ghostlight demo: {exc}", file=sys.stderr)
        return 1
    finally:
        if browser is not None:
            await browser.aclose()
        if service is not None:
            service.terminate()
            service.wait(timeout=10)
        server.shutdown()
