"""Which way the extension gets in: the flag first, the DevTools pipe when the extension does
not connect in time or the browser is a branded Chrome that ignores the flag, and one error
naming the browser and its version when neither works."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import attrs
import pytest

from ghostlight_trio.browser import managed, reach
from ghostlight_trio.transport.endpoints import Endpoints


@pytest.mark.parametrize(
    ("version", "ignores"),
    [
        ("Google Chrome 137.0.7151.55", True),
        ("Google Chrome 150.0.1.2 beta", True),
        ("Google Chrome 136.0.7103.113", False),
        ("Google Chrome for Testing 140.0.1.2", False),
        ("Chromium 156.0.7000.1 built on Debian", False),
        ("Brave Browser 138.1.80.113", False),
        ("no version (exit code 1)", False),
    ],
)
def test_which_browsers_ignore_load_extension(version: str, ignores: bool) -> None:
    assert reach.ignores_load_extension(version) is ignores


async def test_the_version_is_what_the_browser_prints(tmp_path: Path) -> None:
    script = tmp_path / "chrome"
    script.write_text("#!/bin/sh\necho 'Google Chrome 138.0.1.2 '\n")
    script.chmod(0o755)
    assert await reach.browser_version(script) == "Google Chrome 138.0.1.2"
    script.write_text("#!/bin/sh\nexit 3\n")
    assert await reach.browser_version(script) == "no version (exit code 3)"


@attrs.define
class _Browser:
    through_pipe: bool
    closed: bool = False
    browser_pid: int | None = None

    async def aclose(self) -> None:
        self.closed = True


@attrs.define
class _World:
    """A fake launch: which ways were started, and which of them connect."""

    version: str
    connects: set[bool]
    pipe_refused: str = ""
    launched: list[_Browser] = attrs.Factory(list)
    kept: list[Any] = attrs.Factory(list)

    async def launch(self, endpoints: Endpoints, **options: Any) -> _Browser:
        if options["through_pipe"] and self.pipe_refused:
            raise managed.ManagedBrowserError(self.pipe_refused)
        browser = _Browser(options["through_pipe"])
        self.launched.append(browser)
        return browser

    async def wait(self, browser: _Browser, within: float) -> str:
        if browser.through_pipe in self.connects:
            return f"connected within {within:g}"
        raise TimeoutError


@pytest.fixture
def world(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> _World:
    made = _World("Chromium 156.0.1.2", connects={False, True})
    chrome = tmp_path / "chrome"

    async def version(browser: Path) -> str:
        return made.version

    monkeypatch.setattr(managed, "find_browser", lambda path: chrome)
    monkeypatch.setattr(reach, "browser_version", version)
    monkeypatch.setattr(managed, "launch", made.launch)
    return made


async def _run(world: _World, endpoints: Endpoints) -> tuple[Any, str]:
    loader = reach.ExtensionLoader(endpoints, world.kept.append, headless=True)
    first = await loader.start()
    return await loader.connected(first, world.wait)  # type: ignore[arg-type]


async def test_a_browser_that_takes_the_flag_is_started_once(world: _World, endpoints: Endpoints) -> None:
    browser, said = await _run(world, endpoints)
    assert [b.through_pipe for b in world.launched] == [False]
    assert said == f"connected within {reach.FLAG_WAIT:g}" and not browser.closed


async def test_without_a_connection_in_time_the_browser_is_started_over_the_pipe(
    world: _World, endpoints: Endpoints
) -> None:
    world.connects = {True}
    browser, said = await _run(world, endpoints)
    first, second = world.launched
    assert (first.through_pipe, second.through_pipe) == (False, True) and first.closed
    assert browser is second and said == f"connected within {managed.CONNECT_TIMEOUT:g}"
    assert world.kept == [first, None, second]  # the command could stop each in turn


async def test_branded_chrome_137_goes_straight_to_the_pipe(world: _World, endpoints: Endpoints) -> None:
    world.version = "Google Chrome 137.0.7151.55"
    await _run(world, endpoints)
    assert [b.through_pipe for b in world.launched] == [True]


@pytest.mark.parametrize("refused", ["", "the browser refused Extensions.loadUnpacked: no"])
async def test_a_browser_that_can_do_neither_gets_one_error(
    world: _World, endpoints: Endpoints, refused: str
) -> None:
    world.connects, world.pipe_refused = set(), refused
    with pytest.raises(managed.ManagedBrowserError) as caught:
        await _run(world, endpoints)
    words = str(caught.value)
    assert "chrome (Chromium 156.0.1.2)" in words and "--browser-path" in words
    assert "with --load-extension: no connection within" in words
    assert (refused or "over the DevTools pipe: no connection") in words
    assert all(b.closed for b in world.launched)
