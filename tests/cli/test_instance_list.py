"""``ghostlight instances``: one row per instance that exists, its service and switches, in 80
columns or as JSON, and nothing started or written to find out."""

from __future__ import annotations

import json

import attrs
import pytest
import trio

from ghostlight_trio.cli import control, instance_list
from ghostlight_trio.cli.instance_list import Row, table
from ghostlight_trio.cli.main import main
from ghostlight_trio.governance.switches import SWITCHES_FILE, Switches, save_switches
from ghostlight_trio.service import lock
from ghostlight_trio.service.lock import Holder
from ghostlight_trio.transport.bridge import StatusReport, WorkspaceEntry
from ghostlight_trio.transport.endpoints import Endpoints


def test_a_stopped_instance_shows_its_saved_switches(set_up_instance, capsys) -> None:
    save_switches(set_up_instance.data_dir / SWITCHES_FILE, Switches(held=True, panicked=True))
    Endpoints.for_instance("other").ensure_private_dirs()
    assert main(["instances"]) == 0
    header, *rows = capsys.readouterr().out.splitlines()
    assert header.split() == ["INSTANCE", "SERVICE", "SWITCHES", "PAUSED"]
    assert [row.split() for row in rows] == [
        ["other", "stopped", "off", "-"],
        [set_up_instance.instance, "stopped", "hold,", "kill", "switch", "-"],
    ]
    assert all(len(line) <= 80 for line in [header, *rows])


def test_json_is_a_list_of_rows(set_up_instance, capsys) -> None:
    assert main(["instances", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["instances"] == [
        {
            "instance": set_up_instance.instance, "running": False, "pid": None,
            "answering": False, "held": False, "panicked": False, "paused_workspaces": None,
        }
    ]  # fmt: skip


def test_no_instance_yet_says_how_to_set_one_up(instance_env, capsys) -> None:
    assert main(["instances"]) == 0
    assert "No instances yet: `ghostlight install`" in capsys.readouterr().out
    assert main(["instances", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["instances"] == []


def test_a_running_service_is_asked_for_its_switches_and_paused_workspaces(
    set_up_instance, monkeypatch
) -> None:
    paused = [WorkspaceEntry(f"ws-{n:016x}", "agent", 1, paused=n < 2) for n in range(3)]
    report = StatusReport(1, "0.1.0", 4242, 1, [], 3, 0, held=True, workspace_list=paused)

    async def query_status(endpoints: Endpoints) -> StatusReport:
        return report

    monkeypatch.setattr(lock, "data_lock_holder", lambda endpoints: Holder("4242", ""))
    monkeypatch.setattr(control, "query_status", query_status)
    row = trio.run(instance_list.row, set_up_instance)
    assert (row.running, row.answering, row.pid) == (True, True, 4242)
    assert (row.held, row.panicked, row.paused_workspaces) == (True, False, 2)


def test_a_silent_service_is_listed_as_not_answering(set_up_instance, monkeypatch) -> None:
    async def query_status(endpoints: Endpoints) -> StatusReport:
        await trio.sleep_forever()
        raise AssertionError

    monkeypatch.setattr(lock, "data_lock_holder", lambda endpoints: Holder("77", ""))
    monkeypatch.setattr(control, "query_status", query_status)
    monkeypatch.setattr(instance_list, "ASK_TIMEOUT", 0.01)
    row = trio.run(instance_list.row, set_up_instance)
    assert (row.running, row.answering, row.pid, row.paused_workspaces) == (True, False, 77, None)
    assert "not answering, pid 77" in table([row])[1]


@pytest.mark.parametrize("name", ["a", "x" * 16, "y" * 40])
def test_rows_fit_80_columns_and_a_long_name_gets_its_own_line(name) -> None:
    row = Row(name, True, 4194304, False, True, True, None)
    lines = table([row, attrs.evolve(row, instance="b", paused_workspaces=12)])
    assert all(len(line) <= 80 for line in lines)
    assert (lines[1] == name) == (len(name) > instance_list.NAME_WIDTH)
    assert any(line.startswith(name) for line in lines)
