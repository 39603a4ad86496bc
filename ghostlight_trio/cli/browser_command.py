"""``ghostlight browser launch``: a managed Chromium wired to this instance, left running."""

from __future__ import annotations

import sys

from ..browser import managed
from ..transport.endpoints import Endpoints
from .background import ensure_service
from .control import wait_for_browser


async def launch(endpoints: Endpoints, headless: bool, browser_path: str | None) -> int:
    try:
        await ensure_service(endpoints)
        browser = await managed.launch(endpoints, headless=headless, browser_path=browser_path)
    except (managed.ManagedBrowserError, RuntimeError) as exc:
        print(f"ghostlight: {exc}", file=sys.stderr)
        return 1
    try:
        report = await wait_for_browser(
            endpoints, within=managed.CONNECT_TIMEOUT, launched=browser
        )
    except (TimeoutError, RuntimeError) as exc:
        await browser.aclose()
        print(
            f"ghostlight: {exc}. Check {browser.log_path} and that the extension in"
            f" {managed.default_extension_dir()} loads.",
            file=sys.stderr,
        )
        return 1
    slot = report.browsers[-1]
    print(f"browser pid {browser.pid}, profile {browser.profile}")
    print(f"extension connected: slot {slot.slot}, version {slot.extension_version}")
    return 0
