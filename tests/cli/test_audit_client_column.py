"""The audit table shows which client made each call (the JSON lines are unchanged)."""

from __future__ import annotations

import json

from ghostlight_trio.cli import audit_command

RECORD = {
    "time": "2026-01-01T00:00:00.000Z", "call": "w1", "workspace": "ws-0123456789abcdef",
    "client": "claude-code", "tool": "navigate", "action": None, "host": "example.test",
    "decision": "allow", "rule": "all_open", "grant": "", "denial_id": "", "manifest": None,
    "outcome": "ok", "reported": "ok", "duration_ms": 12, "effects": 1,
}  # fmt: skip


def table(*records: dict[str, object]) -> list[str]:
    return list(audit_command.render(records))


def test_the_client_is_the_last_column_and_earlier_columns_keep_their_places() -> None:
    header, row = table(RECORD)
    assert header.split() == [
        "TIME",
        "CALL",
        "WORKSPACE",
        "TOOL",
        "ACTION",
        "HOST",
        "DECISION",
        "RULE",
        "DENIAL_ID",
        "OUTCOME",
        "REPORTED",
        "DURATION_MS",
        "CLIENT",
    ]
    cells = row.split()
    assert cells[:4] == [RECORD["time"], "w1", RECORD["workspace"], "navigate"]
    assert cells[-1] == "claude-code"
    assert row.index("claude-code") == header.index("CLIENT")


def test_a_long_label_is_cut_and_a_label_with_spaces_stays_in_its_column() -> None:
    header, long, spaced, absent = table(
        RECORD | {"client": "a-very-long-client-label-from-somewhere"},
        RECORD | {"client": "Visual Studio Code"},
        {k: v for k, v in RECORD.items() if k != "client"},
    )
    width = dict(audit_command.COLUMNS)["client"]
    start = header.index("CLIENT")
    assert long[start:] == "a-very-long-client-label-from-somewhere"[: width - 1] + "…"
    assert spaced[start:] == "Visual Studio Code"
    assert absent[start:] == "-"
    assert [line.split()[3] for line in (long, spaced, absent)] == ["navigate"] * 3


def test_control_characters_in_a_label_never_reach_the_terminal() -> None:
    _, row = table(RECORD | {"client": "x\x1b[2J\ny"})
    assert "\x1b" not in row and "\n" not in row
    assert row.split()[-1] == "x?[2J?y"


def test_an_event_row_has_no_client(capsys) -> None:
    event = {"time": "2026-01-01T00:00:01.000Z", "event": "hold"}
    _, row = table(event)
    assert row.split()[1:4] == ["-", "-", "[hold]"] and row.split()[-1] == "-"


def test_json_lines_are_unchanged(capsys) -> None:
    audit_command._print([RECORD], True, None)
    assert json.loads(capsys.readouterr().out) == RECORD


def test_what_the_caller_was_told_stands_beside_what_happened() -> None:
    """A call cancelled while its handler finished anyway: the outcome is what happened, the
    reported cell what the caller heard."""
    header, row = table(RECORD | {"outcome": "ok", "reported": "cancelled"})
    assert row[header.index("OUTCOME"):].split()[:2] == ["ok", "cancelled"]



DISPATCHED = {
    "time": "2026-01-01T00:00:02.000Z", "event": "dispatched", "call": "w2",
    "workspace": "ws-0123456789abcdef", "client": "claude-code", "tool": "computer",
    "action": "left_click", "host": "example.test", "decision": "allow", "rule": "all_open",
    "grant": "", "manifest": None,
}  # fmt: skip


def test_a_call_in_flight_is_a_row_of_its_own_with_no_outcome_yet() -> None:
    """``tail -f`` shows a call once it sends its first effect (its record follows)."""
    header, row = table(DISPATCHED)
    assert row.split()[1] == "w2"
    assert row.split()[3:5] == ["computer", "left_click"]
    assert row[header.index("OUTCOME"):].split()[0] == "(dispatched)"
    assert row.split()[-1] == "claude-code"


def test_show_and_tail_leave_out_what_calls_wrote_ahead(tmp_path, capsys) -> None:
    from ghostlight_trio.transport.endpoints import Endpoints

    endpoints = Endpoints(
        instance="audit-view", runtime_dir=tmp_path, data_dir=tmp_path, edge_socket=tmp_path / "e",
        browser_socket=tmp_path / "b", lock_file=tmp_path / "l", secret_file=tmp_path / "s",
    )  # fmt: skip
    hold = {"time": "2026-01-01T00:00:03.000Z", "event": "hold"}
    lines = [RECORD, DISPATCHED, hold, RECORD | {"call": "w2", "tool": "computer"}]
    endpoints.audit_file.write_text("".join(json.dumps(line) + "\n" for line in lines))
    for shown in (
        lambda: audit_command.show(endpoints, tool=None, decision=None, since=None, until=None, as_json=True),
        lambda: audit_command.tail(endpoints, count=10, as_json=True),
    ):
        assert shown() == 0
        printed = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
        assert printed == [lines[0], hold, lines[3]]


def test_control_characters_in_an_event_name_never_reach_the_terminal() -> None:
    """An event row shows its name in the tool column, filtered like every other cell."""
    _, row = table({"time": RECORD["time"], "event": "hold\x1b]0;owned\x07\r"})
    assert "\x1b" not in row and "\x07" not in row and "\r" not in row
    assert row.split()[3] == "[hold?]0;owned??]"
