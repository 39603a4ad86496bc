"""A running service that did not answer (stopped, frozen) when the user pressed hold or panic
finds the switch the CLI saved for it: it applies a saved switch on its next look at the
record, never releases one on a saved "off" it did not take itself, and a resume says what it
released, a switch it took from the record included."""

from __future__ import annotations

import contextlib
import io
import logging
import os
import signal
from pathlib import Path

import pytest
from bench.harness import service_process as service_with_process  # tests/ is on sys.path

from ghostlight_trio.cli.status import status
from ghostlight_trio.governance import governor as governor_module
from ghostlight_trio.governance.governor import Governor
from ghostlight_trio.governance.switches import (
    SWITCHES_FILE,
    Switches,
    load_switches,
    save_switches,
)
from ghostlight_trio.transport import handshake
from ghostlight_trio.transport.endpoints import Endpoints

from .processes import acli


def running(path: Path) -> tuple[Governor, list[str]]:
    """A service's governor that has looked at the record once, as it does when it listens."""
    governor = Governor(switches_file=path)
    governor.catch_up_saved_switches()
    heard: list[str] = []
    governor.listeners.append(heard.append)
    return governor, heard


def test_resume_releases_a_hold_saved_while_the_service_did_not_answer(tmp_path: Path) -> None:
    path = tmp_path / SWITCHES_FILE
    governor, heard = running(path)
    save_switches(path, Switches(held=True))  # the CLI, while the service was stopped
    said = governor.resume()
    assert said == "Resumed (hold saved while this service did not answer, not applied until now)."
    assert heard == ["hold", "resume"]  # the trail shows the hold, then its release
    assert load_switches(path) == Switches()


def test_the_next_look_applies_a_saved_hold_and_resume_names_it(tmp_path: Path) -> None:
    path = tmp_path / SWITCHES_FILE
    governor, heard = running(path)
    save_switches(path, Switches(held=True, panicked=True))
    governor.reload_if_changed()  # the service's once-a-second poll
    assert governor.held and governor.panicked and heard == ["panic", "hold"]
    said = governor.resume()
    assert said == (
        "Resumed (hold saved while this service did not answer,"
        " kill switch saved while this service did not answer)."
    )


def test_a_command_that_reaches_the_service_keeps_a_saved_panic(tmp_path: Path) -> None:
    path = tmp_path / SWITCHES_FILE
    governor, _ = running(path)
    save_switches(path, Switches(panicked=True))
    assert governor.control("hold")[0]
    assert governor.held and governor.panicked
    assert load_switches(path) == Switches(held=True, panicked=True)


def test_a_saved_off_does_not_release_a_running_hold(tmp_path: Path) -> None:
    path = tmp_path / SWITCHES_FILE
    governor, _ = running(path)
    governor.hold()
    save_switches(path, Switches())  # a resume saved while the service did not answer
    governor.reload_if_changed()
    assert governor.held
    assert governor.resume() == "Resumed (hold)."


def test_a_switch_whose_save_failed_is_not_taken_back_from_the_old_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / SWITCHES_FILE
    governor, _ = running(path)
    governor.hold()

    def refuse(*_: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(governor_module, "save_switches", refuse)
    assert "a restart would not keep it" in governor.resume()
    governor.reload_if_changed()  # the record still says held: its own, not a new press
    assert not governor.held


def test_an_unreadable_record_leaves_a_running_service_as_it_is(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / SWITCHES_FILE
    governor, heard = running(path)
    path.write_text("{not json")
    with caplog.at_level(logging.ERROR, "ghostlight.governance"):
        governor.reload_if_changed()
        governor.reload_if_changed()
    assert not governor.panicked and heard == []
    assert len([r for r in caplog.records if "keeps its switches" in r.message]) == 1


@pytest.mark.process
async def test_a_hold_pressed_while_the_service_was_stopped_is_shown_applied_and_released(
    instance_env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The whole path with a real service: stopped (SIGSTOP), ``hold`` is saved by the CLI and
    ``status`` shows it saved; let run again, the service applies it, and ``resume`` says it
    released the hold that was saved while it did not answer."""
    with service_with_process(instance_env) as (endpoints, service):
        os.kill(service.pid, signal.SIGSTOP)
        try:
            held = await acli(instance_env, "hold")
            monkeypatch.setattr(handshake, "HANDSHAKE_TIMEOUT", 0.5)  # a stopped one never answers
            stopped = await acli_status(endpoints)
        finally:
            os.kill(service.pid, signal.SIGCONT)
            monkeypatch.undo()
        assert held.returncode == 1 and "applies it within a second of running again" in held.stderr
        assert stopped[-1].startswith("control    HOLD saved: agents' browser calls stop as soon")
        resumed = await acli(instance_env, "resume")
        assert resumed.returncode == 0, resumed.stderr
        assert resumed.stdout.startswith("Resumed (hold saved while this service did not answer")
        assert load_switches(endpoints.data_dir / SWITCHES_FILE) == Switches()
        assert "control    agents may act" in await acli_status(endpoints)


async def acli_status(endpoints: Endpoints) -> list[str]:
    """``status`` in this process (so its handshake timeout can be short), as lines."""
    with contextlib.redirect_stdout(io.StringIO()) as out:
        await status(endpoints)
    return out.getvalue().splitlines()
