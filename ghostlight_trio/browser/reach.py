"""How the extension gets into a managed browser: ``--load-extension``, else the DevTools pipe.

Chromium honours ``--load-extension``; branded Google Chrome 137 and later ignores it and comes
up without the extension. Chrome's supported way for automation is ``Extensions.loadUnpacked``
over ``--remote-debugging-pipe`` (``pipe_holder``), which Chromium takes too. The flag is tried
first (it needs no extra process) unless the browser's ``--version`` says it is ignored; when
the extension does not connect within ``FLAG_WAIT``, the browser is started again over the pipe.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

import attrs
import trio

from ..transport.endpoints import Endpoints
from . import managed
from .managed import CONNECT_TIMEOUT, ManagedBrowser, ManagedBrowserError

FLAG_WAIT = 10.0
"""How long a browser started with ``--load-extension`` gets to connect before the pipe is
tried: Chromium connects within a few seconds even on a busy machine."""
FLAG_IGNORED_FROM = 137
"""The first branded Chrome release that ignores ``--load-extension``."""
VERSION_WAIT = 15.0
_BRANDED_CHROME = re.compile(r"^Google Chrome (\d+)\.")

T = TypeVar("T")
Connected = Callable[[ManagedBrowser, float], Awaitable[T]]
"""Waits (at most the seconds given) until the browser's extension connects; raises
TimeoutError when it does not."""


async def browser_version(browser: Path) -> str:
    """What ``browser --version`` prints (``Chromium 156.0...``), or why it printed nothing.
    (Not ``trio.run_process``: a Ctrl-C there comes out wrapped in an exception group.)"""
    try:
        process = await trio.lowlevel.open_process(
            [str(browser), "--version"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
    except OSError as exc:
        return f"no version ({exc.strerror})"
    assert process.stdout is not None
    try:
        with trio.move_on_after(VERSION_WAIT):
            printed = b""
            while len(printed) < 4096 and (data := await process.stdout.receive_some()):
                printed += data
            code = await process.wait()
            text = printed.decode(errors="replace").strip()
            return text.splitlines()[-1] if text else f"no version (exit code {code})"
        return f"no version within {VERSION_WAIT:g}s"
    finally:
        with trio.CancelScope(shield=True):
            if process.returncode is None:
                process.kill()
                await process.wait()
            await process.stdout.aclose()


def ignores_load_extension(version: str) -> bool:
    """Branded Chrome from ``FLAG_IGNORED_FROM`` on (Chrome for Testing still takes the flag)."""
    found = _BRANDED_CHROME.match(version)
    return found is not None and int(found.group(1)) >= FLAG_IGNORED_FROM


@attrs.define
class ExtensionLoader:
    """The managed browser of one launch, and the ways left to load the extension into it.

    ``keep`` is told of each browser started and of its stop (None), so that the command that
    launched it can stop it on Ctrl-C or a failure."""

    endpoints: Endpoints
    keep: Callable[[ManagedBrowser | None], None]
    headless: bool
    browser_path: str | None = None
    browser: Path | None = None
    version: str = ""
    through_pipe: list[bool] = attrs.Factory(list)
    """The ways still to try, in order: False for the flag, True for the pipe."""
    tried: list[str] = attrs.Factory(list)

    async def start(self) -> ManagedBrowser:
        """Start the browser the first way that applies."""
        self.browser = managed.find_browser(self.browser_path)
        self.version = await browser_version(self.browser)
        self.through_pipe = [True] if ignores_load_extension(self.version) else [False, True]
        return await self._next()

    async def _next(self) -> ManagedBrowser:
        assert self.browser is not None
        through_pipe = self.through_pipe.pop(0)
        try:
            launched = await managed.launch(
                self.endpoints,
                headless=self.headless,
                browser_path=str(self.browser),
                through_pipe=through_pipe,
            )
        except ManagedBrowserError as exc:
            if not through_pipe:
                raise  # the browser could not start at all: no other way would help
            self.tried.append(f"over the DevTools pipe: {exc}")
            raise self._neither() from None
        self.keep(launched)
        return launched

    async def connected(self, launched: ManagedBrowser, wait: Connected[T]) -> tuple[ManagedBrowser, T]:
        """Wait for ``launched`` to connect; past ``FLAG_WAIT`` without the extension, stop it
        and start it over the pipe. The browser that connected, and what ``wait`` returned."""
        while True:
            within = FLAG_WAIT if self.through_pipe else CONNECT_TIMEOUT
            try:
                return launched, await wait(launched, within)
            except TimeoutError:
                how = "over the DevTools pipe" if launched.through_pipe else "with --load-extension"
                self.tried.append(f"{how}: no connection within {within:g}s")
                await launched.aclose()
                self.keep(None)
                if not self.through_pipe:
                    raise self._neither() from None
            launched = await self._next()

    def _neither(self) -> ManagedBrowserError:
        """One error naming the browser, its version and what to do."""
        log = self.endpoints.data_dir / "browser.log"
        return ManagedBrowserError(
            f"{self.browser} ({self.version}) did not load the Ghostlight extension ("
            + "; ".join(self.tried)
            + f"). See {log}. Use Chromium (`apt install chromium`) or a Chrome that takes"
            " Extensions.loadUnpacked over --remote-debugging-pipe, and pass it with"
            " --browser-path PATH"
        )
