"""One terminal audit record per settled call, appended as a JSON line.

Writing is best effort: a failure is logged and never changes the call's outcome. Workspaces
appear only as keyed fingerprints.
"""

from __future__ import annotations

import json
import logging
import math
import os
import weakref
from collections.abc import Callable
from json.encoder import encode_basestring_ascii  # type: ignore[attr-defined]
from pathlib import Path

import attrs

log = logging.getLogger("ghostlight.audit")


@attrs.frozen
class AuditRecord:
    time: float
    """Wall-clock seconds since the epoch when the call settled."""
    work_id: str
    operation: str
    workspace: str | None
    """Keyed fingerprint of the workspace, never the raw handle."""
    outcome: str
    """How the call really settled."""
    reported: str
    """What the caller was told (``outcome_unknown`` when the reply deadline came first)."""
    duration: float
    effects_dispatched: int = 0
    client: str = ""
    """The caller's self-reported label (presentation only)."""
    action: str | None = None
    host: str | None = None
    """The normalised host the decision was about; never a path or query."""
    decision: str | None = None
    rule: str = ""
    grant: str = ""
    denial_id: str = ""
    manifest: str | None = None


AuditHook = Callable[[AuditRecord], None]

_FIELDS = tuple(field.name for field in attrs.fields(AuditRecord))


class JsonlAuditLog:
    """Append-only JSONL file; each record is one ``write`` on an ``O_APPEND`` descriptor.

    The descriptor is opened on the first record and kept for the life of the log (closed when
    the log is collected), so a record costs one ``write`` rather than open/write/close. After a
    failure the next record opens the file afresh.
    """

    def __init__(self, path: Path) -> None:
        self._path = path
        self._fd: int | None = None
        self._finalizer: weakref.finalize | None = None

    def __call__(self, record: AuditRecord) -> None:
        line = _encode(record)
        try:
            fd = self._fd
            if fd is None:
                fd = self._open()
            os.write(fd, line)
        except OSError as exc:
            self.close()
            log.error("audit record for work %s not written: %s", record.work_id, exc)

    def _open(self) -> int:
        fd = os.open(self._path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
        self._fd = fd
        self._finalizer = weakref.finalize(self, _close_quietly, fd)
        return fd

    def close(self) -> None:
        """Close the descriptor now (a later record reopens it)."""
        finalizer, self._finalizer, self._fd = self._finalizer, None, None
        if finalizer is not None:
            finalizer()


def _close_quietly(fd: int) -> None:
    try:
        os.close(fd)
    except OSError:
        pass


_KEYS = {name: encode_basestring_ascii(name) + ":" for name in _FIELDS}


def _scalar(value: object) -> str | None:
    """``json.dumps`` of a plain scalar, None for anything else."""
    kind = type(value)
    if kind is str:
        return encode_basestring_ascii(value)  # type: ignore[arg-type]
    if value is None:
        return "null"
    if kind is bool:
        return "true" if value else "false"
    if kind is int:
        return int.__repr__(value)  # type: ignore[arg-type]
    if kind is float and math.isfinite(value):  # type: ignore[arg-type]
        return float.__repr__(value)  # type: ignore[arg-type]
    return None


def _encode(record: AuditRecord) -> bytes:
    """The line ``json.dumps(attrs.asdict(record), separators=(",", ":"))`` gives, built
    directly when every field is a plain scalar (the usual case), else by exactly that."""
    parts = []
    for name in _FIELDS:
        text = _scalar(getattr(record, name))
        if text is None:
            return (json.dumps(attrs.asdict(record), separators=(",", ":")) + "\n").encode()
        parts.append(_KEYS[name] + text)
    return ("{" + ",".join(parts) + "}\n").encode()


def safe_audit(hook: AuditHook, record: AuditRecord) -> None:
    """Call ``hook``; whatever it raises is logged, never propagated into the call."""
    try:
        hook(record)
    except Exception:
        log.exception("audit hook failed for work %s", record.work_id)
