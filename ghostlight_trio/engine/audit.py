"""One terminal audit record per settled call, appended as a JSON line.

Writing is best effort: a failure is logged and never changes the call's outcome. Workspaces
appear only as keyed fingerprints.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable
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


AuditHook = Callable[[AuditRecord], None]


class JsonlAuditLog:
    """Append-only JSONL file; each record is one ``write`` on an ``O_APPEND`` descriptor."""

    def __init__(self, path: Path) -> None:
        self._path = path

    def __call__(self, record: AuditRecord) -> None:
        line = json.dumps(attrs.asdict(record), separators=(",", ":")) + "\n"
        try:
            fd = os.open(self._path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                os.write(fd, line.encode())
            finally:
                os.close(fd)
        except OSError as exc:
            log.error("audit record for work %s not written: %s", record.work_id, exc)


def safe_audit(hook: AuditHook, record: AuditRecord) -> None:
    """Call ``hook``; whatever it raises is logged, never propagated into the call."""
    try:
        hook(record)
    except Exception:
        log.exception("audit hook failed for work %s", record.work_id)
