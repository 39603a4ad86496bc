"""Hold and the kill switch outlive the service: a restart (or an on-demand service's idle
exit and automatic start) comes back with them as the user left them."""

from __future__ import annotations

import stat
from pathlib import Path

from ghostlight_trio.governance.governor import Governor
from ghostlight_trio.governance.switches import SWITCHES_FILE


def test_panic_and_hold_are_kept_until_resume(tmp_path: Path) -> None:
    path = tmp_path / "data" / SWITCHES_FILE
    first = Governor(switches_file=path)
    assert not first.panicked and not first.held
    first.panic()
    first.hold()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    restarted = Governor(switches_file=path)
    assert restarted.panicked and restarted.held
    assert restarted.resume() == "Resumed (hold, kill switch)."
    assert not Governor(switches_file=path).panicked


def test_a_record_that_cannot_be_read_starts_with_the_kill_switch_on(tmp_path: Path) -> None:
    path = tmp_path / SWITCHES_FILE
    for garbage in ("{not json", '{"held": "yes"}', "[]"):
        path.write_text(garbage)
        assert Governor(switches_file=path).panicked


def test_a_switch_that_cannot_be_saved_says_so(tmp_path: Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("")
    governor = Governor(switches_file=blocked / SWITCHES_FILE)  # a file where a dir must be
    said = governor.panic()
    assert governor.panicked
    assert "a restart would not keep it" in said
