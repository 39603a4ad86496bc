"""``ghostlight browser launch``: a managed Chromium wired to this instance, left running.

What it starts is its own to stop until the extension has connected: Ctrl-C or a failure
before then stops the browser and the service it started. Once connected, the browser is meant
to outlive the command, so it says which process that is and how to stop it.
"""

from __future__ import annotations

import sys

from ..browser import managed
from ..browser.reach import ExtensionLoader
from ..transport.bridge import StatusReport
from ..transport.endpoints import Endpoints
from .arguments import instance_flag
from .background import ensure_service
from .control import wait_for_browser
from .screen import has_screen, headless_here
from .started import Started

__all__ = ["has_screen", "launch", "launched_loader"]


def launched_loader(
    endpoints: Endpoints, started: Started, headless: bool, browser_path: str | None
) -> ExtensionLoader:
    """The loader of one command's browser, each browser it starts kept in ``started``."""

    def keep(browser: managed.ManagedBrowser | None) -> None:
        started.browser = browser

    return ExtensionLoader(endpoints, keep, headless=headless, browser_path=browser_path)


async def connected_report(
    endpoints: Endpoints, loader: ExtensionLoader, browser: managed.ManagedBrowser
) -> tuple[managed.ManagedBrowser, StatusReport]:
    """Wait for the extension, starting the browser again over the DevTools pipe when the
    first start did not load it."""

    async def wait(launched: managed.ManagedBrowser, within: float) -> StatusReport:
        return await wait_for_browser(endpoints, within=within, launched=launched)

    return await loader.connected(browser, wait)


async def launch(endpoints: Endpoints, headless: bool, browser_path: str | None) -> int:
    headless = headless_here(headless)
    started = Started()
    kept = False
    try:
        started.service = await ensure_service(endpoints)
        loader = launched_loader(endpoints, started, headless, browser_path)
        try:
            browser, report = await connected_report(endpoints, loader, await loader.start())
        except RuntimeError as exc:  # the browser died before its extension connected
            raise RuntimeError(f"{exc}. {_where_to_look(started, endpoints)}") from None
        kept = True
    except (managed.ManagedBrowserError, RuntimeError) as exc:
        print(f"ghostlight: {exc}", file=sys.stderr)
        return 1
    finally:
        if not kept:
            await started.stop(say=True)
    slot = report.browsers[-1]
    pid = browser.browser_pid or browser.pid
    how = "over the DevTools pipe" if browser.through_pipe else "with --load-extension"
    print(f"browser pid {pid}, profile {browser.profile}")
    print(f"extension connected: slot {slot.slot}, version {slot.extension_version} (loaded {how})")
    print(
        "The browser keeps running after this command; stop it with"
        f" `ghostlight browser stop{instance_flag(endpoints)}` (or `kill {pid}`)."
    )
    if started.service is not None:
        print(
            f"It uses the service this command started (pid {started.service.pid}); stop that"
            f" with `ghostlight service stop{instance_flag(endpoints)}`."
        )
    return 0


def _where_to_look(started: Started, endpoints: Endpoints) -> str:
    """The browser's own last words are in its log: where it is, and what else to check."""
    shown = started.browser
    log = shown.log_path if shown is not None else endpoints.data_dir / "browser.log"
    return f"Check {log} and that the extension in {managed.default_extension_dir()} loads."
