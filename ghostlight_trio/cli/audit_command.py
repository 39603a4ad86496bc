"""``ghostlight audit tail [-f] | show``: the audit trail as a readable table, with filters."""

from __future__ import annotations

import datetime as dt
import itertools
import json
import os
import sys
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from ..audit.records import DISPATCHED, generations, parse_record, read_records
from ..files.safe import open_private_reader
from ..transport.endpoints import Endpoints
from .arguments import TimeBound
from .wording import os_problem

COLUMNS = (
    ("time", 24),
    ("call", 16),  # early: it ties a step (``<id>/<n>``) and a call in flight to their records
    ("workspace", 19),
    ("tool", 18),
    ("action", 14),
    ("host", 24),
    ("decision", 11),
    ("rule", 20),
    ("denial_id", 10),
    ("outcome", 15),
    ("reported", 15),  # what the caller was told, when that is not the outcome (a cancel)
    ("duration_ms", 11),  # as wide as its header, so the client column lines up
    ("client", 20),
)
"""The client's self-reported label comes last: it is the only cell that may hold spaces, and
the columns before it keep their places for whoever splits rows on whitespace."""


def _cell(record: dict[str, Any], key: str) -> str:
    event = record.get("event")
    if event == DISPATCHED:  # a call in flight, followed live: its row, as yet unsettled
        if key == "outcome":
            return "(dispatched)"
    elif event is not None and key == "tool":
        return f"[{printable(str(event))}]"
    value = record.get(key)
    return "-" if value in (None, "") else printable(str(value))


def printable(text: str) -> str:
    """Recorded text made safe for a terminal: a client chooses its own label, so control
    characters (an escape sequence, a line break) become ``?``."""
    return "".join(char if char.isprintable() else "?" for char in text)


def render(records: Iterable[dict[str, Any]]) -> Iterator[str]:
    yield HEADER
    for record in records:
        yield _row(record)


HEADER = "  ".join(name.upper().ljust(width) for name, width in COLUMNS).rstrip()


def _row(record: dict[str, Any]) -> str:
    cells = []
    for name, width in COLUMNS:
        text = _cell(record, name)
        if len(text) > width:
            text = _call_cut(text, width) if name == "call" else text[: width - 1] + "…"
        cells.append(text.ljust(width))
    return "  ".join(cells).rstrip()


def _call_cut(call: str, width: int) -> str:
    """A call id too long for its column, cut inside the connection's tag: the sequence number
    before it and the step number after it are what tell neighbouring rows apart."""
    base, slash, step = call.partition("/")
    tail = slash + step
    keep = width - len(tail) - 1
    if keep < 1:
        return call[: width - 1] + "…"
    return base[:keep] + "…" + tail


def _epoch(stamp: object) -> float | None:
    """A record's RFC 3339 time in epoch seconds (None when it has none that reads)."""
    try:
        return dt.datetime.fromisoformat(str(stamp)).timestamp()
    except ValueError:
        return None


FILTERS = ("tool", "decision", "workspace", "since", "until")
"""The filters ``show`` and ``select`` take, as ``audit show`` names its options."""


def select(
    records: Iterable[dict[str, Any]],
    *,
    tool: str | None = None,
    decision: str | None = None,
    workspace: str | None = None,
    since: TimeBound | None = None,
    until: TimeBound | None = None,
    events: bool = True,
) -> Iterator[dict[str, Any]]:
    """Records that pass every filter; ``since``/``until`` include the whole span they name."""
    for record in records:
        if "event" in record and (not events or record["event"] == DISPATCHED):
            continue
        if tool is not None and record.get("tool") != tool:
            continue
        if workspace is not None and record.get("workspace") != workspace:
            continue
        if decision is not None and record.get("decision") != decision:
            continue
        if since is not None or until is not None:
            stamp = _epoch(record.get("time"))
            if stamp is None:
                continue
            if since is not None and stamp < since.start:
                continue
            if until is not None and stamp >= until.end and stamp != until.start:
                continue
        yield record


def show(
    endpoints: Endpoints,
    *,
    tool: str | None,
    decision: str | None,
    since: TimeBound | None,
    until: TimeBound | None,
    as_json: bool,
    workspace: str | None = None,
) -> int:
    skipped = Skipped()
    chosen = select(
        every_record(endpoints.audit_file, skipped),
        tool=tool,
        decision=decision,
        workspace=workspace,
        since=since,
        until=until,
        events=tool is None and decision is None and workspace is None,
    )
    _print(chosen, as_json, endpoints)
    skipped.say()
    return 0


class Skipped:
    """Lines that are no audit record (torn by a crash, or not written by Ghostlight): readers
    skip them, and say on stderr how many, so a damaged trail does not pass for a short one."""

    def __init__(self) -> None:
        self.count = 0
        self._said = 0

    def note(self) -> None:
        self.count += 1

    def say(self) -> None:
        """Say how many were skipped since it last said so (nothing when none were)."""
        new, self._said = self.count - self._said, self.count
        if new:
            lines = "line" if new == 1 else "lines"
            print(
                f"({new} unreadable {lines} skipped: torn or not audit records)",
                file=sys.stderr,
                flush=True,
            )


def every_record(path: Path, skipped: Skipped) -> Iterator[dict[str, Any]]:
    """Every record of every generation of the trail at ``path``, oldest first."""
    for file in generations(path):
        handle = _open_generation(file)
        if handle is None:
            continue
        with handle:
            yield from records_from(handle, skipped)


def records_from(
    handle: IO[bytes], skipped: Skipped, *, final: bool = True
) -> Iterator[dict[str, Any]]:
    """The records on whole lines from ``handle``'s position, counting the lines that are none
    (see ``read_records``)."""
    return read_records(handle, final=final, unreadable=skipped.note)


def _parsed(line: bytes, skipped: Skipped) -> dict[str, Any] | None:
    if not line.strip():
        return None
    record = parse_record(line)
    if record is None:
        skipped.note()
    return record


READ_BACK = 64 * 1024
"""How much of a file ``audit tail`` reads back from its end at a time."""


def newest(path: Path, count: int, skipped: Skipped) -> list[dict[str, Any]]:
    """The last ``count`` settled records of the trail, oldest first: read back from the end
    of the newest file, and of older ones only while more are needed."""
    return _newest_in(reversed(generations(path)), count, skipped)[::-1]


def _newest_in(files: Iterable[Path], count: int, skipped: Skipped) -> list[dict[str, Any]]:
    """The last ``count`` settled records of ``files`` (newest file first), newest first."""
    found: list[dict[str, Any]] = []
    for file in files:
        if len(found) >= count:
            break
        handle = _open_generation(file)
        if handle is None:
            continue
        with handle:
            found += _back(handle, handle.seek(0, os.SEEK_END), count - len(found), skipped)
    return found


def _back(handle: IO[bytes], end: int, count: int, skipped: Skipped) -> list[dict[str, Any]]:
    """Up to ``count`` settled records on the lines before offset ``end``, newest first."""
    found: list[dict[str, Any]] = []
    if count <= 0:
        return found
    for line in _lines_back(handle, end):
        record = _parsed(line, skipped)
        if record is not None and record.get("event") != DISPATCHED:
            found.append(record)
            if len(found) == count:
                break
    return found


def _lines_back(handle: IO[bytes], end: int) -> Iterator[bytes]:
    """The lines before offset ``end``, last first, read a block at a time from there."""
    position, partial = end, b""
    while position > 0:
        start = max(0, position - READ_BACK)
        handle.seek(start)
        lines = (handle.read(position - start) + partial).split(b"\n")
        position = start
        partial = lines.pop(0)  # it may begin in the block before
        yield from reversed(lines)
    yield partial


def _whole_lines_end(handle: IO[bytes]) -> int:
    """The offset just past the last whole line (a line still being written is not one)."""
    end = handle.seek(0, os.SEEK_END)
    position = end
    while position > 0:
        start = max(0, position - READ_BACK)
        handle.seek(start)
        newline = handle.read(position - start).rfind(b"\n")
        if newline >= 0:
            return start + newline + 1
        position = start
    return 0


def tail(endpoints: Endpoints, *, count: int, as_json: bool, follow: bool = False) -> int:
    skipped = Skipped()
    if not follow:
        latest = newest(endpoints.audit_file, count, skipped)
        _print(latest, as_json, endpoints if count else None)  # -n 0 asked for nothing
        skipped.say()
        return 0
    records = followed(endpoints.audit_file, count, skipped)
    if not as_json:
        print(HEADER)
    for record in records:
        print(json.dumps(record, ensure_ascii=False) if as_json else _row(record), flush=True)
    return 0  # not reached: following ends with Ctrl-C (or the reader going away)


def followed(path: Path, count: int, skipped: Skipped) -> Iterator[dict[str, Any]]:
    """The last ``count`` settled records of the trail at ``path``, oldest first, then every
    record appended to it, forever: the one follower ``audit tail -f`` and ``watch`` share.
    The history is read before this returns, so a refused file stops a command before it
    prints anything."""
    live = _open(path)  # first, so nothing written while the older files are read is missed
    history: list[dict[str, Any]] = []  # newest first
    if live is not None:
        end = _whole_lines_end(live)
        history += _back(live, end, count, skipped)
        live.seek(end)  # the follower goes on from there
    else:
        print(f"(waiting for {path}, written on the first call)", file=sys.stderr, flush=True)
    older = [file for file in reversed(generations(path)) if file != path]
    history += _newest_in(older, count - len(history), skipped)
    skipped.say()
    return itertools.chain(reversed(history), _follow(path, live, skipped))


def settled(records: Iterable[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """The records, without the ``dispatched`` events calls write ahead of their first effect
    (their own records follow); only a followed trail shows them, as calls in flight."""
    return (record for record in records if record.get("event") != DISPATCHED)


FOLLOW_INTERVAL = 0.25
"""How often a followed audit file is looked at again when nothing new was in it."""


def _open(path: Path) -> IO[bytes] | None:
    """The live file to follow; None while there is none. A file that is not the trail's own
    (a link, a FIFO, another user's) raises ``UnsafeFile``: the command says why and stops."""
    try:
        return open_private_reader(path)
    except FileNotFoundError:
        return None


def _open_generation(file: Path) -> IO[bytes] | None:
    """One file of the trail to read, or None (the reader says why when it is refused)."""
    try:
        return open_private_reader(file)
    except FileNotFoundError:
        return None
    except OSError as exc:
        print(f"ghostlight: not read: {os_problem(exc)}", file=sys.stderr)
        return None


def _follow(path: Path, handle: IO[bytes] | None, skipped: Skipped) -> Iterator[dict[str, Any]]:
    """Records appended to ``path`` from where ``handle`` stands, forever; across rotations
    (the renamed file is read to its end, then the new one from its start)."""
    while True:
        if handle is None:
            handle = _open(path)
        if handle is not None:
            got = False
            for record in records_from(handle, skipped, final=False):
                got = True
                yield record
            skipped.say()
            if got:
                continue
            if _replaced(path, handle):
                yield from records_from(handle, skipped)  # its last lines before the rename
                skipped.say()
                handle.close()
                handle = None
                continue
        time.sleep(FOLLOW_INTERVAL)


def _replaced(path: Path, handle: IO[bytes]) -> bool:
    try:
        current = os.stat(path)
    except FileNotFoundError:
        return False  # rotated and not yet started again: keep reading the old one
    return current.st_ino != os.fstat(handle.fileno()).st_ino


def _print(records: Iterable[dict[str, Any]], as_json: bool, endpoints: Endpoints | None) -> None:
    """The records as a table or JSON lines; an empty result is explained (on stderr) unless
    ``endpoints`` is None."""
    shown = 0

    def counted() -> Iterator[dict[str, Any]]:
        nonlocal shown
        for record in records:
            shown += 1
            yield record

    if as_json:
        for record in counted():
            print(json.dumps(record, ensure_ascii=False))
    else:
        for line in render(counted()):
            print(line)
    if not shown and endpoints is not None:  # on stderr: stdout stays a table or JSON lines
        if endpoints.audit_file.exists():
            print(f"(no records match; audit file: {endpoints.audit_file})", file=sys.stderr)
        else:
            print(
                f"(no audit records yet: {endpoints.audit_file} is written on the first call)",
                file=sys.stderr,
            )
