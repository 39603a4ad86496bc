"""The service's audit writer: append-only JSONL with bounded rotation.

Each line is one ``write`` on an ``O_APPEND`` descriptor kept open between records. When the
next line would take the file past ``max_bytes``, whole files are renamed (``audit.jsonl`` ->
``.1`` -> ``.2`` ... up to ``keep``; the oldest generation is dropped) and a fresh file is
started, so a line is never split, rewritten or duplicated. Writing is best effort: a failure is
logged and never changes a call's outcome.
"""

from __future__ import annotations

import logging
import os
import time
import weakref
from pathlib import Path
from typing import Any

from ..transport.safe_files import open_private
from .records import call_line, dispatched_line, event_line, unsettled_line

log = logging.getLogger("ghostlight.audit")

DEFAULT_MAX_BYTES = 32 * 1024 * 1024
DEFAULT_KEEP = 4


class RotatingAuditLog:
    """Callable as the engine's audit hook; ``event`` records service-wide transitions."""

    def __init__(
        self, path: Path, *, max_bytes: int = DEFAULT_MAX_BYTES, keep: int = DEFAULT_KEEP
    ) -> None:
        self.path = path
        self._max_bytes = max_bytes
        self._keep = max(1, keep)
        self._fd: int | None = None
        self._size = 0
        self._finalizer: weakref.finalize | None = None

    def __call__(self, record: Any) -> None:
        self._append(call_line(record), record.work_id)

    def dispatched(self, record: Any) -> None:
        """A call is about to send its first effect (see ``records.DISPATCHED``)."""
        self._append(dispatched_line(record), record.work_id)

    def event(self, name: str, **fields: Any) -> None:
        self._append(event_line(name, time.time(), **fields), name)

    def unsettled(self, dispatched: dict[str, Any]) -> None:
        """The record of a call an earlier service was cut off during, from its ``dispatched``
        event (see ``audit.unsettled``)."""
        self._append(unsettled_line(dispatched), str(dispatched.get("call")))

    def _append(self, line: bytes, what: str) -> None:
        try:
            fd = self._fd if self._fd is not None else self._open()
            if self._size and self._size + len(line) > self._max_bytes:
                self._rotate()
                fd = self._open()
            os.write(fd, line)
            self._size += len(line)
        except OSError as exc:
            self.close()
            log.error("audit record %s not written: %s", what, exc)

    def _open(self) -> int:
        fd = open_private(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
        self._fd = fd
        self._size = os.fstat(fd).st_size
        self._finalizer = weakref.finalize(self, _close_quietly, fd)
        return fd

    def _rotate(self) -> None:
        self.close()
        oldest = self._generation(self._keep)
        if oldest.exists():
            oldest.unlink()
        for index in range(self._keep - 1, 0, -1):
            source = self._generation(index)
            if source.exists():
                source.rename(self._generation(index + 1))
        if self.path.exists():
            self.path.rename(self._generation(1))

    def _generation(self, index: int) -> Path:
        return self.path.with_name(f"{self.path.name}.{index}")

    def close(self) -> None:
        finalizer, self._finalizer, self._fd = self._finalizer, None, None
        if finalizer is not None:
            finalizer()


def _close_quietly(fd: int) -> None:
    try:
        os.close(fd)
    except OSError:
        pass
