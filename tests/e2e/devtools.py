"""The browser's own view, read through its DevTools endpoint (a browser launched with
``--remote-debugging-port=0``): what the user would see, checked without the extension's word."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from typing import Any

import trio
from trio_websocket import open_websocket_url

DEVTOOLS_FLAGS = ("--remote-debugging-port=0", "--remote-debugging-address=127.0.0.1")


async def _browser_socket_url(profile: Path) -> str:
    path = profile / "DevToolsActivePort"
    with trio.fail_after(10):
        while not (path.exists() and path.read_text().strip()):  # noqa: ASYNC110 - a file Chromium writes
            await trio.sleep(0.1)
    port = int(path.read_text().splitlines()[0])

    def read() -> str:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/version", timeout=5) as reply:
            return str(json.load(reply)["webSocketDebuggerUrl"])

    return await trio.to_thread.run_sync(read)


async def in_extension_worker(profile: Path, expression: str) -> Any:
    """The value of ``expression`` (awaited, returned by value) in the extension's service
    worker, where ``chrome.tabs`` and ``chrome.tabGroups`` show the browser as it is."""
    async with open_websocket_url(await _browser_socket_url(profile)) as ws:
        numbers = iter(range(1, 1_000_000))

        async def command(method: str, session: str | None = None, **params: Any) -> Any:
            number = next(numbers)
            message: dict[str, Any] = {"id": number, "method": method, "params": params}
            if session is not None:
                message["sessionId"] = session
            await ws.send_message(json.dumps(message))
            while True:
                answer = json.loads(await ws.get_message())
                if answer.get("id") == number:
                    if "error" in answer:
                        raise RuntimeError(f"{method}: {answer['error']}")
                    return answer["result"]

        with trio.fail_after(20):
            targets = (await command("Target.getTargets"))["targetInfos"]
            [worker] = [
                t for t in targets
                if t["type"] == "service_worker" and t["url"].startswith("chrome-extension://")
            ]
            session = (
                await command("Target.attachToTarget", targetId=worker["targetId"], flatten=True)
            )["sessionId"]
            evaluated = await command(
                "Runtime.evaluate", session, expression=expression, awaitPromise=True,
                returnByValue=True,
            )
    if "exceptionDetails" in evaluated:
        raise RuntimeError(f"the worker threw: {evaluated['exceptionDetails']}")
    return evaluated["result"].get("value")
