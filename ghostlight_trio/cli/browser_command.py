"""``ghostlight browser launch``: a managed Chromium wired to this instance, left running.

What it starts is its own to stop until the extension has connected: Ctrl-C or a failure
before then stops the browser and the service it started. Once connected, the browser is meant
to outlive the command, so it says which process that is and how to stop it.
"""

from __future__ import annotations

import sys

from ..browser import managed
from ..transport.endpoints import Endpoints
from .arguments import instance_flag
from .background import ensure_service
from .control import wait_for_browser
from .screen import has_screen, headless_here
from .started import Started

__all__ = ["has_screen", "launch"]


async def launch(endpoints: Endpoints, headless: bool, browser_path: str | None) -> int:
    headless = headless_here(headless)
    started = Started()
    kept = False
    try:
        started.service = await ensure_service(endpoints)
        started.browser = browser = await managed.launch(
            endpoints, headless=headless, browser_path=browser_path
        )
        try:
            report = await wait_for_browser(
                endpoints, within=managed.CONNECT_TIMEOUT, launched=browser
            )
        except (TimeoutError, RuntimeError) as exc:
            print(
                f"ghostlight: {exc}. Check {browser.log_path} and that the extension in"
                f" {managed.default_extension_dir()} loads.",
                file=sys.stderr,
            )
            return 1
        kept = True
    except (managed.ManagedBrowserError, RuntimeError) as exc:
        print(f"ghostlight: {exc}", file=sys.stderr)
        return 1
    finally:
        if not kept:
            await started.stop(say=True)
    slot = report.browsers[-1]
    print(f"browser pid {browser.pid}, profile {browser.profile}")
    print(f"extension connected: slot {slot.slot}, version {slot.extension_version}")
    print(f"The browser keeps running after this command; stop it with `kill {browser.pid}`.")
    if started.service is not None:
        print(
            f"It uses the service this command started (pid {started.service.pid}); stop that"
            f" with `ghostlight service stop{instance_flag(endpoints)}`."
        )
    return 0
