"""What the user chose outlives the service: a restart (or an on-demand service's idle exit
and automatic start) comes back with hold and the kill switch as the user left them, and with
the manifest ``service --manifest`` chose."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from ghostlight_trio.governance.assembly import default_files
from ghostlight_trio.governance.governor import Governor
from ghostlight_trio.governance.sources import MANIFEST_ENV, record_manifest
from ghostlight_trio.governance.switches import SWITCHES_FILE, Switches, save_switches


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


def test_a_recorded_manifest_is_what_every_start_loads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(MANIFEST_ENV, raising=False)
    data = tmp_path / "data"
    assert default_files(data, org=None).user is None
    record_manifest(data, tmp_path / "policy.json")
    assert default_files(data, org=None).user == tmp_path / "policy.json"
    monkeypatch.setenv(MANIFEST_ENV, str(tmp_path / "env.json"))  # the environment wins
    assert default_files(data, org=None).user == tmp_path / "env.json"
    monkeypatch.delenv(MANIFEST_ENV)
    record_manifest(data, None)
    assert default_files(data, org=None).user is None


def test_a_switch_saved_while_the_service_was_starting_is_caught_up(tmp_path: Path) -> None:
    """The CLI saves a switch while nothing listens; a service that had read the record just
    before applies it once it listens, and never undoes one on a saved "off"."""
    path = tmp_path / SWITCHES_FILE
    starting = Governor(switches_file=path)
    Governor(switches_file=path).panic()  # as the CLI saves it meanwhile
    heard: list[str] = []
    starting.listeners.append(heard.append)
    starting.catch_up_saved_switches()
    assert starting.panicked and not starting.held and heard == ["panic"]
    starting.hold()
    save_switches(path, Switches())  # an older "off" on disk
    starting.catch_up_saved_switches()
    assert starting.panicked and starting.held

