"""``ghostlight watch`` shows the last calls first, then follows the trail as it grows, prints
plain lines when stdout is no terminal, and ends on Ctrl-C with 130 and no traceback, like
``audit tail -f``; it starts no service."""

from __future__ import annotations

import io
import json
import re
from typing import Any

import pytest

from ghostlight_trio.cli import audit_command, watch
from ghostlight_trio.cli.main import main
from ghostlight_trio.transport.endpoints import Endpoints


def record(call: str, **fields: Any) -> str:
    body = {
        "time": "2026-12-05T03:04:05.000Z", "call": call, "workspace": "ws-1", "client": "agent",
        "tool": "navigate", "action": "open", "host": "example.com", "outcome": "ok",
        "duration_ms": 12.0, **fields,
    }  # fmt: skip
    return json.dumps(body) + "\n"


def test_watch_shows_history_then_follows_and_stops_on_ctrl_c(
    set_up_instance: Endpoints, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = set_up_instance.audit_file
    path.write_text("".join(record(f"old-{i}", host=f"h{i}.example") for i in range(15)))
    appended = [
        record("new-1", event="dispatched", host="live.example"),
        record("new-1", host="live.example", outcome="denied"),
        json.dumps({"time": "2026-12-05T03:04:09.000Z", "event": "panic"}) + "\n",
    ]
    sleeps = 0

    def writer(_: float) -> None:
        """Each time the follower waits, the trail grows by one line; then Ctrl-C."""
        nonlocal sleeps
        sleeps += 1
        if not appended:
            raise KeyboardInterrupt
        with path.open("a") as handle:
            handle.write(appended.pop(0))

    monkeypatch.setattr(audit_command.time, "sleep", writer)
    assert main(["watch", "-n", "3"]) == 130
    out, err = capsys.readouterr()
    rows = out.splitlines()
    assert err == "" and "Traceback" not in out
    assert "\033" not in out  # not a terminal: plain lines
    assert rows[0] == "ws-1  agent"
    assert ["h12.example" in rows[1], "h13.example" in rows[2], "h14.example" in rows[3]] == [
        True
    ] * 3
    assert "live.example" in rows[4] and rows[4].rstrip().endswith("started")
    assert "live.example" in rows[5] and "denied" in rows[5]
    assert rows[6].endswith("* KILL SWITCH engaged: browser work stopped until resume")
    assert all(len(row) <= 80 for row in rows) and len(rows) == 7
    assert not set_up_instance.edge_socket.exists()  # watching started no service


def test_watch_waits_for_a_trail_not_yet_written(
    set_up_instance: Endpoints, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def interrupt(_: float) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(audit_command.time, "sleep", interrupt)
    assert main(["watch"]) == 130
    out, err = capsys.readouterr()
    assert out == "" and "waiting for" in err and "Traceback" not in err


class Terminal(io.StringIO):
    """Stdout as a terminal: watch colours its lines there."""

    def isatty(self) -> bool:
        return True


def test_on_a_terminal_colour_is_added_around_lines_that_still_fit(
    set_up_instance: Endpoints, monkeypatch: pytest.MonkeyPatch
) -> None:
    long_host = "a-host-name-much-too-long-for-its-column.example.com"
    set_up_instance.audit_file.write_text(
        record("a", outcome="denied", host=long_host)
        + json.dumps({"time": "2026-12-05T03:04:09.000Z", "event": "hold"})
        + "\n"
    )

    def interrupt(_: float) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(audit_command.time, "sleep", interrupt)
    out = Terminal()
    with pytest.raises(KeyboardInterrupt):
        watch.run(set_up_instance, 10, out)
    rows = out.getvalue().splitlines()
    assert rows[1].startswith("\033[31m") and rows[2].startswith("\033[1m\033[33m")
    visible = [re.sub(r"\033\[[0-9;]*m", "", row) for row in rows]
    assert all(len(row) <= 80 for row in visible) and "…" in visible[1]
