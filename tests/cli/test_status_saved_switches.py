"""``ghostlight status`` always shows the switches the user set: the saved record when no
service answers (down, stopped, frozen), and where a running service and the record differ."""

from __future__ import annotations

import json
import os
import socket

import pytest
import trio

from ghostlight_trio.cli import status as status_command
from ghostlight_trio.cli import switch_status
from ghostlight_trio.governance.switches import SWITCHES_FILE, Switches, save_switches
from ghostlight_trio.service.lock import instance_lock
from ghostlight_trio.transport.bridge import StatusReport
from ghostlight_trio.transport.endpoints import Endpoints
from ghostlight_trio.transport.proof import load_or_create_secret


def save(endpoints: Endpoints, switches: Switches) -> None:
    save_switches(endpoints.data_dir / SWITCHES_FILE, switches)


async def shown(endpoints: Endpoints, capsys: pytest.CaptureFixture[str]) -> list[str]:
    assert await status_command.status(endpoints) == 1
    return capsys.readouterr().out.splitlines()


def report(switches: Switches) -> StatusReport:
    return StatusReport(
        sequence=1, service_version="0", pid=1, edges=0, browsers=[], workspaces=0,
        active_work=0, held=switches.held, panicked=switches.panicked,
    )


async def test_a_panic_saved_while_the_service_is_down_is_shown(
    endpoints: Endpoints, capsys: pytest.CaptureFixture[str]
) -> None:
    save(endpoints, Switches(panicked=True))
    lines = await shown(endpoints, capsys)
    assert lines[1] == "service    down (not running for this instance)"
    assert lines[-1] == (
        "control    KILL SWITCH saved: browser work stops and agents' calls are refused as soon"
        " as the service runs (it is down);"
        f" `ghostlight resume --instance {endpoints.instance}` releases it"
    )


async def test_nothing_saved_while_down_says_so(
    endpoints: Endpoints, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = await shown(endpoints, capsys)
    assert lines[-1] == (
        "control    nothing saved (no hold, no kill switch): agents may act once a service runs"
    )


async def test_a_hold_saved_while_the_service_does_not_answer_is_shown(
    endpoints: Endpoints, capsys: pytest.CaptureFixture[str], autojump_clock: trio.abc.Clock
) -> None:
    """A listener of this process holds the instance and never answers, as a frozen one."""
    endpoints.ensure_private_dirs()
    load_or_create_secret(endpoints.secret_file)
    save(endpoints, Switches(held=True))
    listener = trio.socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    await listener.bind(str(endpoints.edge_socket))
    listener.listen(1)
    try:
        with instance_lock(endpoints):
            lines = await shown(endpoints, capsys)
    finally:
        listener.close()
    assert lines[1].startswith(f"service    running (pid {os.getpid()}) but not answering")
    assert lines[-1] == (
        "control    HOLD saved: agents' browser calls stop as soon as the service runs again"
        f" (it is not answering); `ghostlight resume --instance {endpoints.instance}` releases it"
    )


async def test_an_unreadable_record_is_shown_as_the_kill_switch_of_the_next_start(
    endpoints: Endpoints, capsys: pytest.CaptureFixture[str]
) -> None:
    endpoints.data_dir.mkdir(parents=True, exist_ok=True)
    (endpoints.data_dir / SWITCHES_FILE).write_text("{not json")
    lines = await shown(endpoints, capsys)
    assert lines[-1].startswith(f"control    {endpoints.data_dir / SWITCHES_FILE} cannot be read")
    assert "a service that starts now starts with the kill switch on" in lines[-1]


async def test_json_carries_the_saved_switches(
    endpoints: Endpoints, capsys: pytest.CaptureFixture[str]
) -> None:
    save(endpoints, Switches(held=True))
    assert await status_command.status(endpoints, as_json=True) == 1
    body = json.loads(capsys.readouterr().out)
    assert body["saved_switches"] == {"held": True, "panicked": False, "problem": ""}


def test_a_saved_switch_the_running_service_has_not_applied_is_named(endpoints: Endpoints) -> None:
    saved = switch_status.Saved(Switches(held=True))
    lines = switch_status.up_lines(report(Switches()), saved, endpoints)
    assert lines[0] == "agents may act"
    assert lines[1].startswith("HOLD saved while the service did not answer, not applied yet")


def test_a_running_switch_a_restart_would_not_keep_is_named(endpoints: Endpoints) -> None:
    saved = switch_status.Saved(Switches())
    lines = switch_status.up_lines(report(Switches(held=True)), saved, endpoints)
    assert lines[0] == "held by the user"
    assert lines[1].startswith("hold not saved") and "a restart would start without it" in lines[1]


def test_agreeing_switches_take_one_line(endpoints: Endpoints) -> None:
    both = Switches(held=True, panicked=True)
    lines = switch_status.up_lines(report(both), switch_status.Saved(both), endpoints)
    assert lines == ["PANIC"]
