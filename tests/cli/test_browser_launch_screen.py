"""``ghostlight browser launch`` on a machine without a screen launches the browser headless
and says so, instead of starting a windowed browser that exits at once."""

from __future__ import annotations

from typing import Any

import pytest

from ghostlight_trio.browser import reach
from ghostlight_trio.cli import browser_command


@pytest.mark.parametrize(
    ("display", "asked_headless", "headless"),
    [({}, False, True), ({"DISPLAY": ":0"}, False, False), ({"WAYLAND_DISPLAY": "wayland-0"}, False, False),
     ({}, True, True)],
)  # fmt: skip
async def test_no_screen_means_headless(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], endpoints: Any,
    display: dict[str, str], asked_headless: bool, headless: bool,
) -> None:  # fmt: skip
    for name in ("DISPLAY", "WAYLAND_DISPLAY"):
        monkeypatch.delenv(name, raising=False)
    for name, value in display.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(browser_command.sys, "platform", "linux")
    asked: list[bool] = []

    async def no_service(endpoints: Any) -> None:
        return None

    async def version(browser: Any) -> str:
        return "Chromium 156.0.1.2"

    async def launch(endpoints: Any, *, headless: bool, **_: Any) -> Any:
        asked.append(headless)
        raise browser_command.managed.ManagedBrowserError("stopped here")

    monkeypatch.setattr(browser_command, "ensure_service", no_service)
    monkeypatch.setattr(browser_command.managed, "launch", launch)
    monkeypatch.setattr(browser_command.managed, "find_browser", lambda path: "chromium")
    monkeypatch.setattr(reach, "browser_version", version)
    assert await browser_command.launch(endpoints, asked_headless, None) == 1
    assert asked == [headless]
    said = capsys.readouterr().err
    assert ("no screen here" in said) == (headless and not asked_headless)
