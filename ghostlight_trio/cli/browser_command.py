"""``ghostlight browser launch``: a managed Chromium wired to this instance, left running."""

from __future__ import annotations

import os
import sys

from ..browser import managed
from ..transport.endpoints import Endpoints
from .background import ensure_service
from .control import wait_for_browser


def has_screen() -> bool:
    """Whether a windowed browser can open here: macOS always has one; elsewhere an X or
    Wayland display must be named."""
    return sys.platform == "darwin" or bool(
        os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
    )


async def launch(endpoints: Endpoints, headless: bool, browser_path: str | None) -> int:
    if not headless and not has_screen():
        # A windowed browser cannot start here at all: Chromium would exit at once with
        # "Missing X server or $DISPLAY", and the launch would only say it exited.
        print(
            "ghostlight: no screen here (neither DISPLAY nor WAYLAND_DISPLAY is set), so the"
            " browser is launched headless.",
            file=sys.stderr,
        )
        headless = True
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
