"""``ghostlight status`` tells workspaces apart: label (numbered like its tab group),
fingerprint, tabs, running calls, what keeps it alive, and whether it is paused."""

from __future__ import annotations

import json

import pytest
import trio

from ghostlight_trio.cli import status as status_command
from ghostlight_trio.transport.bridge import StatusReport, WorkspaceEntry
from ghostlight_trio.transport.endpoints import Endpoints

FP_A, FP_B, FP_C = "ws-0123456789abcdef", "ws-fedcba9876543210", "ws-00000000000000aa"
ENTRIES = [
    WorkspaceEntry(FP_A, "claude-code", 1, tabs=1, active_calls=0, clients=1),
    WorkspaceEntry(FP_B, "claude-code", 2, tabs=12, active_calls=2, clients=0, expires_in=None),
    WorkspaceEntry(FP_C, "", 1, tabs=0, active_calls=0, clients=0, expires_in=87, paused=True),
]


def show(
    report: StatusReport,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    *,
    as_json: bool = False,
) -> str:
    async def fetch(endpoints: Endpoints) -> tuple[StatusReport, None]:
        return report, None

    monkeypatch.setattr(status_command, "fetch", fetch)
    assert trio.run(status_command.status, Endpoints.for_instance("default"), as_json) == 0
    return capsys.readouterr().out


def test_each_workspace_gets_one_aligned_line(monkeypatch, capsys) -> None:
    report = StatusReport(1, "0.1.0", 42, 1, [], 3, 2, workspace_list=ENTRIES)
    lines = show(report, monkeypatch, capsys).splitlines()
    start = lines.index("workspaces 3, active work 2")
    rows = lines[start + 1 : start + 4]
    assert [row.strip().split("  ")[0] for row in rows] == [
        "claude-code",
        "claude-code 2",
        "(no label)",
    ]
    assert [row.split() for row in rows] == [
        ["claude-code", FP_A, "1", "tab", "0", "running", "in", "use", "by", "a", "client"],
        [
            "claude-code",
            "2",
            FP_B,
            "12",
            "tabs",
            "2",
            "running",
            "in",
            "use",
            "by",
            "its",
            "running",
            "calls",
        ],
        ["(no", "label)", FP_C, "0", "tabs", "0", "running", "expires", "in", "87", "s", "PAUSED"],
    ]
    # Aligned under the values of the lines above, column by column.
    assert all(row.startswith(" " * 11) and row[11] != " " for row in rows)
    assert len({row.index("ws-") for row in rows}) == 1
    assert len({row.index("running") for row in rows}) == 1
    assert "PAUSED" in lines[start + 4]
    assert lines[start + 5].endswith(f"`ghostlight resume --workspace {FP_C}`")  # the id it takes
    # The lines that were there before are still there.
    assert "clients    1 MCP connection(s) now" in lines
    assert lines[-1].startswith("log        ")


def test_no_pause_hint_without_a_paused_workspace_and_several_clients_counted(
    monkeypatch, capsys
) -> None:
    entry = WorkspaceEntry(FP_A, "cursor", 1, tabs=2, clients=2)
    shown = show(
        StatusReport(1, "0.1.0", 42, 2, [], 1, 0, workspace_list=[entry]), monkeypatch, capsys
    )
    assert f"cursor  {FP_A}  2 tabs  0 running  in use by 2 clients" in shown
    assert "PAUSED" not in shown


def test_a_hostile_or_long_label_stays_on_one_printable_line(monkeypatch, capsys) -> None:
    entries = [
        WorkspaceEntry(FP_A, "evil\x1b]0;owned\x07\nnext", 1, clients=1),
        WorkspaceEntry(FP_B, "x" * 120, 3, clients=1),
    ]
    shown = show(
        StatusReport(1, "0.1.0", 42, 2, [], 2, 0, workspace_list=entries), monkeypatch, capsys
    )
    assert "\x1b" not in shown and "\x07" not in shown
    rows = [line for line in shown.splitlines() if "ws-" in line]
    assert len(rows) == 2
    assert rows[0].split()[0] == "evil?]0;owned??next"
    name = rows[1].split()[0]
    assert name.endswith("…") and rows[1].split()[1] == "3"
    assert len(f"{name} 3") == status_command.NAME_WIDTH


def test_json_carries_the_list(monkeypatch, capsys) -> None:
    report = StatusReport(1, "0.1.0", 42, 1, [], 3, 2, workspace_list=ENTRIES)
    body = json.loads(show(report, monkeypatch, capsys, as_json=True))
    assert body["workspaces"] == 3
    assert body["workspace_list"][1] == {
        "fingerprint": FP_B,
        "label": "claude-code",
        "ordinal": 2,
        "tabs": 12,
        "active_calls": 2,
        "clients": 0,
        "expires_in": None,
        "paused": False,
    }
    assert [w["paused"] for w in body["workspace_list"]] == [False, False, True]


def test_a_report_without_workspaces_prints_as_before(monkeypatch, capsys) -> None:
    shown = show(StatusReport(1, "0.1.0", 42, 0, [], 0, 0), monkeypatch, capsys)
    lines = shown.splitlines()
    index = lines.index("workspaces 0, active work 0")
    assert lines[index + 1].startswith("browsers   none connected")


def test_a_browser_that_answers_nothing_is_told_from_a_slow_page(monkeypatch, capsys) -> None:
    from ghostlight_trio.transport.bridge import BrowserSummary

    def browser(slot: int, **waits: object) -> BrowserSummary:
        return BrowserSummary(slot, f"browser{slot}-id", "g", "0.1.0", [], **waits)  # type: ignore[arg-type]

    browsers = [
        browser(1),
        browser(2, waiting=1, silent_for=3),
        browser(3, waiting=2, silent_for=40),
        browser(4, waiting=1, silent_for=45, unanswered_ping_for=30),
    ]
    report = StatusReport(1, "0.1.0", 42, 1, browsers, 0, 3)
    shown = show(report, monkeypatch, capsys)
    lines = shown.splitlines()
    heads = {int(line.split()[1]): index for index, line in enumerate(lines) if line.startswith("browser ")}
    after = {slot: lines[index + 1] for slot, index in heads.items()}
    assert after[1].startswith("browser 2") and after[2].strip() == "1 request waiting"
    assert after[3].strip() == "2 requests waiting, nothing heard for 40 s (it answers pings: a slow page)"
    assert after[4].strip().startswith("NOT ANSWERING: 1 request waiting, nothing heard for 45 s")
    assert "a ping unanswered for 30 s" in after[4] and "may be frozen" in after[4]
