"""``audit tail -n N`` reads back from the end of the newest files only as far as N records
need, across rotations; every reader says on stderr how many unreadable lines it skipped."""

from __future__ import annotations

import json

import pytest

from ghostlight_trio.audit import records
from ghostlight_trio.cli import audit_command
from ghostlight_trio.transport.endpoints import Endpoints


def line(call: str, **extra: object) -> str:
    return json.dumps({"time": "2026-01-01T00:00:00.000Z", "call": call, "tool": "t", **extra}) + "\n"


def trail(endpoints: Endpoints, *generations: str) -> None:
    """Write the audit files, oldest first (``audit.jsonl.N`` ... ``audit.jsonl``)."""
    endpoints.ensure_private_dirs()
    path = endpoints.audit_file
    for index, text in enumerate(reversed(generations)):
        (path if index == 0 else path.with_name(f"{path.name}.{index}")).write_text(text)


def tailed(endpoints: Endpoints, capsys: pytest.CaptureFixture[str], count: int) -> tuple[list[str], str]:
    assert audit_command.tail(endpoints, count=count, as_json=True) == 0
    out, err = capsys.readouterr()
    return [json.loads(row)["call"] for row in out.splitlines()], err


class CountingJson:
    """``json`` for the audit reader, counting the lines it parses."""

    def __init__(self) -> None:
        self.parsed = 0

    def loads(self, text: bytes | str) -> object:
        self.parsed += 1
        return json.loads(text)


def test_tail_parses_only_the_lines_it_shows(
    endpoints: Endpoints, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    full = "".join(line(f"old-{i}") for i in range(5000))
    trail(endpoints, full, full, full + "".join(line(f"new-{i}") for i in range(5)))
    counting = CountingJson()
    monkeypatch.setattr(records, "json", counting)
    calls, err = tailed(endpoints, capsys, 3)
    assert calls == ["new-2", "new-3", "new-4"] and err == ""
    assert counting.parsed <= 3


def test_tail_reads_back_into_older_files_in_order(
    endpoints: Endpoints, capsys: pytest.CaptureFixture[str]
) -> None:
    """Records across generations come out oldest first; ``dispatched`` events do not count,
    a line torn by a crash is skipped and said to be, and -n 0 shows nothing."""
    trail(
        endpoints,
        line("a") + line("b"),
        line("c") + '{"time": "2026-01-01T00:00:0\n' + line("d"),
        line("e") + line("x", event="dispatched") + line("f"),
    )
    calls, err = tailed(endpoints, capsys, 5)
    assert calls == ["b", "c", "d", "e", "f"]
    assert err == "(1 unreadable line skipped: torn or not audit records)\n"
    assert tailed(endpoints, capsys, 50)[0] == ["a", "b", "c", "d", "e", "f"]
    assert tailed(endpoints, capsys, 0) == ([], "")


def test_tail_reads_lines_longer_than_a_block(
    endpoints: Endpoints, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(audit_command, "READ_BACK", 7)
    trail(endpoints, line("first", host="h" * 40) + line("second") + line("third"))
    assert tailed(endpoints, capsys, 2)[0] == ["second", "third"]
    assert tailed(endpoints, capsys, 9)[0] == ["first", "second", "third"]


def test_show_says_how_many_lines_it_skipped(
    endpoints: Endpoints, capsys: pytest.CaptureFixture[str]
) -> None:
    trail(endpoints, "not json\n" + line("a"), line("b") + "[1, 2]\n\n" + '{"half": ')
    assert audit_command.show(
        endpoints, tool=None, decision=None, since=None, until=None, as_json=True
    ) == 0
    out, err = capsys.readouterr()
    assert [json.loads(row)["call"] for row in out.splitlines()] == ["a", "b"]
    assert err == "(3 unreadable lines skipped: torn or not audit records)\n"
