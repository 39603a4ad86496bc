"""The on-disk shape of an audit line: fixed key order, content-free values.

A call record never carries arguments, results, page text, URL paths or queries, or a raw
workspace handle (only the keyed fingerprint). Event records (hold, resume, kill switch, policy
reloads, attention, and the ``dispatched`` event a call writes ahead of its first effect) carry
an ``event`` key; readers that replay calls skip them.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from ..files.safe import open_private_reader
from ..untrusted.excerpt import excerpt
from ..untrusted.unicode import escapes_lone_surrogate

if TYPE_CHECKING:
    from ..engine.audit import AuditRecord

CALL_KEYS = (
    "time",
    "call",
    "workspace",
    "client",
    "tool",
    "action",
    "host",
    "decision",
    "rule",
    "grant",
    "denial_id",
    "manifest",
    "outcome",
    "reported",
    "duration_ms",
    "effects",
)
"""The exact key order of a call record."""

_encoder = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)


_second: list[Any] = [None, ""]


def rfc3339(epoch: float) -> str:
    """UTC, millisecond precision: ``2025-01-31T12:00:00.123Z`` (the second is formatted once)."""
    whole = int(epoch)
    millis = int(round((epoch - whole) * 1000))
    if millis == 1000:
        whole, millis = whole + 1, 0
    if _second[0] != whole:
        _second[0], _second[1] = whole, time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(whole))
    return f"{_second[1]}.{millis:03d}Z"


_string = json.encoder.encode_basestring
"""The encoder's own string quoting (C), as used with ``ensure_ascii=False``. It raises
TypeError for anything but a string, which sends the record down the general path."""


_MIDDLES: dict[tuple[Any, ...], str] = {}
"""Rendered middles of call lines (every field but time, call, duration and effects), by their
values. Calls repeat the same client, tool, decision and outcome, so most lines reuse one."""
_MIDDLES_LIMIT = 4096


def call_line(record: AuditRecord) -> bytes:
    """One engine ``AuditRecord`` as a JSON line with the fixed key order.

    Built directly from the (string, null and number) fields, which is several times cheaper
    than a dict through the encoder and byte-identical to it; a field of any other type takes
    the encoder path.
    """
    try:
        duration = round(record.duration * 1000, 1)
        effects = record.effects_dispatched
        if type(effects) is not int or not math.isfinite(duration):
            raise TypeError
        values = (
            record.workspace, record.client, record.operation, record.action, record.host,
            record.decision, record.rule, record.grant, record.denial_id, record.manifest,
            record.outcome, record.reported,
        )  # fmt: skip
        middle = _MIDDLES.get(values)  # only strings and nulls are ever stored
        if middle is None:
            middle = _middle(values)
            # A field that was cut is not kept whole as a key.
            if all(value is None or len(value) <= FIELD_LIMIT for value in values):
                if len(_MIDDLES) >= _MIDDLES_LIMIT:
                    _MIDDLES.clear()
                _MIDDLES[values] = middle
        work_id = record.work_id
        call = "null" if work_id is None else _string(work_id)
        return (
            f'{{"time":"{rfc3339(record.time)}","call":{call}{middle}'
            f',"duration_ms":{float.__repr__(duration)},"effects":{int.__repr__(effects)}}}\n'
        ).encode()
    except TypeError:  # a field of an unexpected type (or unhashable): the general path
        return _encoded_call_line(record)


FIELD_LIMIT = 256
"""Characters of one text field a record keeps: the client's label, a restriction's name and
grant ids come from clients, and one of a megabyte would otherwise go into every line."""


def _field(value: Any) -> Any:
    """A text field as a record keeps it: cut past ``FIELD_LIMIT`` characters (then it says
    how long it was)."""
    if type(value) is str and len(value) > FIELD_LIMIT:
        return excerpt(value, FIELD_LIMIT)
    return value


def _middle(values: tuple[Any, ...]) -> str:
    quote, field = _string, _field
    (workspace, client, tool, action, host, decision, rule, grant, denial_id, manifest, outcome,
     reported) = ["null" if value is None else quote(field(value)) for value in values]  # fmt: skip
    return (
        f',"workspace":{workspace},"client":{client},"tool":{tool},"action":{action}'
        f',"host":{host},"decision":{decision},"rule":{rule},"grant":{grant}'
        f',"denial_id":{denial_id},"manifest":{manifest},"outcome":{outcome}'
        f',"reported":{reported}'
    )


def _encoded_call_line(record: AuditRecord) -> bytes:
    """The general path: a dict with the fixed key order through the JSON encoder."""
    values = (
        rfc3339(record.time),
        record.work_id,
        record.workspace,
        record.client,
        record.operation,
        record.action,
        record.host,
        record.decision,
        record.rule,
        record.grant,
        record.denial_id,
        record.manifest,
        record.outcome,
        record.reported,
        round(record.duration * 1000, 1),
        record.effects_dispatched,
    )
    body = dict(zip(CALL_KEYS, map(_field, values), strict=True))
    return (_encoder.encode(body) + "\n").encode()


DISPATCHED = "dispatched"
"""The event a call's first effect writes ahead of sending it; the call's own record follows
when it settles. One without that record names a call the service stopped during."""

_DISPATCH_KEYS = ("workspace", "client", "tool", "action", "host", "decision", "rule", "grant", "manifest")


def dispatched_line(record: AuditRecord) -> bytes:
    """The ``dispatched`` event of a call, with the call fields known before it settles."""
    values = (
        record.workspace, record.client, record.operation, record.action, record.host,
        record.decision, record.rule, record.grant, record.manifest,
    )  # fmt: skip
    return event_line(
        DISPATCHED, record.time, call=record.work_id, **dict(zip(_DISPATCH_KEYS, values, strict=True))
    )


def unsettled_line(dispatched: dict[str, Any]) -> bytes:
    """The record of a call whose service stopped before it settled, from its ``dispatched``
    event: its outcome is unknown, nothing is known to have been reported, and its duration
    and effect count are unknown too."""
    known = {key: dispatched.get(key) for key in ("time", "call", *_DISPATCH_KEYS)}
    values = {
        **known, "denial_id": "", "outcome": "outcome_unknown", "reported": None,
        "duration_ms": None, "effects": None,
    }  # fmt: skip
    return (_encoder.encode({key: values[key] for key in CALL_KEYS}) + "\n").encode()


def event_line(event: str, epoch: float, **fields: Any) -> bytes:
    body = {"time": rfc3339(epoch), "event": event}
    body.update((key, _field(value)) for key, value in fields.items())
    return (_encoder.encode(body) + "\n").encode()


def generations(path: Path) -> list[Path]:
    """The audit files oldest first: ``audit.jsonl.N`` ... ``audit.jsonl.1``, ``audit.jsonl``."""
    rotated = []
    for candidate in path.parent.glob(path.name + ".*"):
        suffix = candidate.name[len(path.name) + 1 :]
        if suffix.isdigit():
            rotated.append((int(suffix), candidate))
    return [file for _, file in sorted(rotated, reverse=True)] + ([path] if path.exists() else [])


def read_lines(path: Path) -> Iterator[dict[str, Any]]:
    """Every parsable record of every generation, oldest first (torn or foreign lines skipped)."""
    for file in generations(path):
        yield from file_records(file)


def file_records(file: Path) -> Iterator[dict[str, Any]]:
    """Every parsable record of one audit file (none when it cannot be opened)."""
    try:
        handle = open_private_reader(file)
    except OSError:
        return
    with handle:
        yield from read_records(handle)


def read_records(
    handle: IO[bytes], *, final: bool = True, unreadable: Callable[[], None] | None = None
) -> Iterator[dict[str, Any]]:
    """The records on whole lines from ``handle``'s position. Unless ``final``, a last line
    still being written is left unread, for a follower to read once it is whole. A line that
    is no record (torn, or foreign) is skipped and, when given, ``unreadable`` is told."""
    while True:
        start = handle.tell()
        line = handle.readline()
        if not line:
            return
        if not final and not line.endswith(b"\n"):
            handle.seek(start)
            return
        record = parse_record(line)
        if record is not None:
            yield record
        elif unreadable is not None and line.strip():
            unreadable()


def parse_record(line: bytes) -> dict[str, Any] | None:
    """One audit line as a record; None for a torn or foreign line. Nothing this writer wrote
    nests deeply, holds bytes that are no UTF-8 or half a surrogate pair, so such a line is
    foreign too (and could be neither followed nor printed)."""
    try:
        value = json.loads(line)
        if not isinstance(value, dict) or escapes_lone_surrogate(line, value):
            return None
    except (ValueError, RecursionError):  # JSONDecodeError and undecodable bytes are ValueErrors
        return None
    return value


def call_records(path: Path) -> Iterator[dict[str, Any]]:
    """Only call records (lines without an ``event`` key)."""
    return (record for record in read_lines(path) if "event" not in record and "call" in record)
