"""Keep a managed headless Chromium, with the real extension and native host, connected to the
service of the instance this process's environment names, until stdin closes.

usage: python browser_host.py   (GHOSTLIGHT_INSTANCE, GHOSTLIGHT_HOME, XDG_RUNTIME_DIR set)
Prints ``ready`` once the extension is connected; exits non-zero if it never does. The browser
is launched as the product launches it (``managed.launch``, as the end-to-end tests do) and
closed with its whole process group.
"""

from __future__ import annotations

import sys

import trio

from ghostlight_trio.browser import managed
from ghostlight_trio.cli.control import wait_for_browser
from ghostlight_trio.transport.endpoints import Endpoints

CONNECT_WITHIN = 60.0
"""Generous: a cold Chromium on a loaded 2-core machine."""


async def main() -> None:
    endpoints = Endpoints.for_instance()
    browser = await managed.launch(endpoints, headless=True)
    try:
        await wait_for_browser(endpoints, within=CONNECT_WITHIN, launched=browser)
        print("ready", flush=True)
        await trio.to_thread.run_sync(sys.stdin.buffer.read)
    finally:
        await browser.aclose()


if __name__ == "__main__":
    trio.run(main)
