"""``ghostlight watch`` lines from recorded audit records: every line fits 80 columns, a long
field is cut with an ellipsis, each outcome reads in words, switches are lines of their own."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from ghostlight_trio.cli import watch_lines
from ghostlight_trio.cli.watch_lines import WIDTH, Lines

UTC = dt.UTC


def call(**fields: Any) -> dict[str, Any]:
    """A call record as the service writes it (key order and all)."""
    record: dict[str, Any] = {
        "time": "2026-12-05T03:04:05.678Z", "call": "c1-abc", "workspace": "ws-3f2a9c10",
        "client": "claude-code", "tool": "navigate", "action": "open", "host": "example.com",
        "decision": "allow", "rule": None, "grant": None, "denial_id": "", "manifest": None,
        "outcome": "ok", "reported": None, "duration_ms": 412.5, "effects": 1,
    }  # fmt: skip
    record.update(fields)
    return record


def dispatched(**fields: Any) -> dict[str, Any]:
    record = {
        key: value for key, value in call(**fields).items() if key not in ("outcome", "duration_ms")
    }
    return {"time": record.pop("time"), "event": "dispatched", **record}


def lines(*records: dict[str, Any]) -> list[str]:
    view = Lines(UTC)
    return [line for record in records for line in view.of(record)]


@pytest.mark.parametrize(
    ("recorded", "shown"),
    [
        ("ok", "ok"), ("denied", "denied"), ("held", "held"), ("tool_error", "error"),
        ("invalid", "error"), ("cancelled", "cancelled"), ("outcome_unknown", "outcome unknown"),
    ],
)  # fmt: skip
def test_every_outcome_reads_in_words(recorded: str, shown: str) -> None:
    line = watch_lines.call_line(call(outcome=recorded), UTC)
    assert line.split()[:5] == ["03:04:05", "navigate", "open", "example.com", *shown.split()[:1]]
    assert f"  {shown}" in line and len(line) <= WIDTH


def test_a_call_starts_and_settles_under_its_workspace_heading() -> None:
    shown = lines(dispatched(), call(), call(call="c2", tool="act_on", action="click"))
    assert shown[0] == "ws-3f2a9c10  claude-code"
    assert shown[1].rstrip().endswith("started")  # no duration while in flight
    assert shown[2].endswith("ok               412ms")
    assert "act_on click" in shown[3] and len(shown) == 4  # same workspace: no second heading


def test_another_workspace_gets_its_own_heading() -> None:
    shown = lines(call(), call(workspace="ws-77aa", client="cursor"), call())
    assert [line for line in shown if not line.startswith(" ")] == [
        "ws-3f2a9c10  claude-code", "ws-77aa  cursor", "ws-3f2a9c10  claude-code",
    ]  # fmt: skip


def test_long_fields_are_cut_with_an_ellipsis_and_nothing_wraps() -> None:
    long = call(
        client="a client with a very long self-chosen label " * 4,
        tool="some_tool_with_a_long_name",
        action="an_action_name_too_long",
        host="a.very.long.subdomain.of.some-site.example.com",
        outcome="some_new_outcome_kind",
        duration_ms=987654321.0,
    )
    shown = lines(long)
    assert all(len(line) <= WIDTH and "\n" not in line for line in shown)
    assert shown[0].endswith("…") and len(shown[0]) == WIDTH
    assert "some_tool_with_a_long_n…" in shown[1] and "a.very.long.subdo…" in shown[1]


def test_control_characters_in_a_label_never_reach_the_terminal() -> None:
    shown = lines(call(client="evil\x1b[2J\nlabel"))
    assert shown[0] == "ws-3f2a9c10  evil?[2J?label"


@pytest.mark.parametrize(
    ("event", "fields", "text"),
    [
        ("hold", {}, "HOLD: agents' browser calls wait until resume"),
        ("panic", {}, "KILL SWITCH engaged"),
        ("resume", {}, "RESUMED: hold and kill switch released"),
        ("resume_workspace", {"workspace": "ws-9"}, "RESUMED workspace ws-9"),
        ("attention_opened", {"workspace": "ws-9"}, "PAUSED workspace ws-9: repeated denials"),
        ("attention_carried", {"workspace": "ws-9"}, "PAUSED workspace ws-9"),
        ("policy", {}, "policy reloaded"),
        ("something_new", {}, "[something_new]"),
    ],
)
def test_switch_events_are_lines_of_their_own(
    event: str, fields: dict[str, str], text: str
) -> None:
    record = {"time": "2026-12-05T03:04:06.000Z", "event": event, **fields}
    shown = lines(call(), record, call())
    assert shown[2].startswith("03:04:06  * " + text)
    assert shown[3] == "ws-3f2a9c10  claude-code"  # the calls after it are headed again
    assert all(len(line) <= WIDTH for line in shown)


def test_durations_fit_six_columns() -> None:
    for millis, text in ((0, "0ms"), (999.4, "999ms"), (1500, "1.5s"), (99_940, "99.9s"),
                         (245_000, "4m05s"), (5_999_000, "99m59s"), (7_200_000, "2h")):  # fmt: skip
        assert watch_lines.duration(millis) == text and len(text) <= 6
    assert watch_lines.duration(None) == ""  # an unsettled call's duration is unknown
    assert "outcome unknown" in watch_lines.call_line(
        call(outcome="outcome_unknown", duration_ms=None), UTC
    )
