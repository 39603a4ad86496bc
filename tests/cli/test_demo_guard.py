"""What keeps the demo from starting is said before anything starts, with what to do: a switch
on for its instance (and how to lift it), another demo running; a call refused by a switch
pressed during the demo is named the same way."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from ghostlight_trio.cli import demo_guard
from ghostlight_trio.cli.demo import demo
from ghostlight_trio.governance import texts
from ghostlight_trio.governance.switches import SWITCHES_FILE, Switches, save_switches


@pytest.mark.parametrize(
    ("switches", "named"),
    [(Switches(panicked=True), "the kill switch"), (Switches(held=True), "a hold"),
     (Switches(held=True, panicked=True), "the kill switch")],
)  # fmt: skip
async def test_a_switch_on_stops_the_demo_before_it_starts(
    endpoints: Any, capsys: pytest.CaptureFixture[str], tmp_path: Path,
    switches: Switches, named: str,
) -> None:  # fmt: skip
    save_switches(endpoints.data_dir / SWITCHES_FILE, switches)
    assert await demo(endpoints, None, True, str(tmp_path / "shot.jpg")) == 1
    captured = capsys.readouterr()
    assert f"{named} is on" in captured.err
    assert f"`ghostlight resume --instance {endpoints.instance}`" in captured.err
    assert "[1/" not in captured.out  # nothing was started


def test_no_switch_no_words(endpoints: Any) -> None:
    assert demo_guard.switch_on(endpoints) is None


@pytest.mark.parametrize(
    ("text", "named"),
    [(texts.PANICKED, "the kill switch"), (texts.PANICKED_AFTER_DISPATCH, "the kill switch"),
     (texts.HELD_LONG, "a hold"), (texts.HOLD_AFTER_DISPATCH, "a hold"),
     ("navigate failed: net::ERR_CONNECTION_REFUSED", None)],
)  # fmt: skip
def test_a_refusal_by_a_switch_is_named(endpoints: Any, text: str, named: str | None) -> None:
    said = demo_guard.refused_by_switch(endpoints, "error: " + text)
    if named is None:
        assert said is None
    else:
        assert said is not None and said.startswith(f"{named} is on") and "resume" in said


def test_one_demo_at_a_time(endpoints: Any) -> None:
    first = demo_guard.take_demo_lock(endpoints)
    assert isinstance(first, demo_guard.DemoLock)
    second = demo_guard.take_demo_lock(endpoints)
    assert isinstance(second, str) and "another `ghostlight demo` is running" in second
    assert f"(pid {os.getpid()})" in second
    first.release()
    third = demo_guard.take_demo_lock(endpoints)
    assert isinstance(third, demo_guard.DemoLock)
    third.release()
