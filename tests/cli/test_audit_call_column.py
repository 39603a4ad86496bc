"""The audit table names each row's call, so steps and calls in flight can be told apart."""

from __future__ import annotations

from ghostlight_trio.cli import audit_command

CALL = {
    "time": "2026-01-01T00:00:00.000Z", "call": "c9.4n7AProI", "workspace": "ws-0123456789abcdef",
    "client": "claude-code", "tool": "act_on", "action": None, "host": "example.test",
    "decision": "allow", "rule": "all_open", "grant": "", "denial_id": "", "manifest": None,
    "outcome": "ok", "reported": "ok", "duration_ms": 12, "effects": 1,
}  # fmt: skip


def cells_under(header: str, row: str, column: str) -> str:
    """The text of ``row`` in ``column``, as a reader lines it up with the header."""
    start = header.index(column)
    return row[start:].split()[0]


def test_the_call_column_follows_the_time() -> None:
    header, row = audit_command.render([CALL])
    assert header.split()[:3] == ["TIME", "CALL", "WORKSPACE"]
    assert cells_under(header, row, "CALL") == "c9.4n7AProI"


def test_a_step_row_shows_its_number_beside_its_composition() -> None:
    step = CALL | {"call": "c9.4n7AProI/2", "tool": "computer", "action": "left_click"}
    header, parent, child = audit_command.render([CALL, step])
    assert cells_under(header, parent, "CALL") == "c9.4n7AProI"
    assert cells_under(header, child, "CALL") == "c9.4n7AProI/2"


def test_a_call_in_flight_matches_its_record_by_call() -> None:
    ahead = {k: CALL[k] for k in ("time", "call", "workspace", "client", "tool", "action")}
    header, flying, settled = audit_command.render([ahead | {"event": "dispatched"}, CALL])
    assert cells_under(header, flying, "OUTCOME") == "(dispatched)"
    assert cells_under(header, flying, "CALL") == cells_under(header, settled, "CALL")


def test_a_long_id_keeps_its_sequence_and_step_numbers() -> None:
    width = dict(audit_command.COLUMNS)["call"]
    long = "1f3a2b.4n7AProI/12"
    assert len(long) > width
    header, row = audit_command.render([CALL | {"call": long}])
    shown = cells_under(header, row, "CALL")
    assert len(shown) == width
    assert shown.startswith("1f3a2b.") and shown.endswith("…/12")
    assert cells_under(header, row, "WORKSPACE") == CALL["workspace"]


def test_what_identifies_a_call_fits_in_120_columns() -> None:
    """Time, call, workspace, tool and action, before the table runs off a narrow screen."""
    header, _ = audit_command.render([CALL])
    assert header.index("ACTION") + dict(audit_command.COLUMNS)["action"] <= 120
