"""The service's audit writer: append-only JSONL with bounded rotation.

Each line is one ``write`` on an ``O_APPEND`` descriptor kept open between records. When the
next line would take the file past ``max_bytes``, whole files are renamed (``audit.jsonl`` ->
``.1`` -> ``.2`` ... up to ``keep``; the oldest generation is dropped) and a fresh file is
started, so a line is never split, rewritten or duplicated.

A line that cannot be written (a full disk, a file that is refused or cannot be opened) puts the
log in a failing state that ``unwritable`` reports with its reason, and the engine refuses calls
that would reach the browser while it lasts (see ``engine.audit``). Lines meanwhile are held in
memory (bounded; past the bound they are counted as lost) and every later line, and every
``unwritable`` question, tries again: once a write goes through, the held lines are written in
order, then an ``audit_resumed`` event that says since when the trail could not be written, why,
and how many lines were held or lost.
"""

from __future__ import annotations

import errno
import logging
import os
import time
import weakref
from collections import deque
from pathlib import Path
from typing import Any

from ..files.safe import UnsafeFile, open_private
from .records import call_line, dispatched_line, event_line, rfc3339, unsettled_line

log = logging.getLogger("ghostlight.audit")

DEFAULT_MAX_BYTES = 32 * 1024 * 1024
DEFAULT_KEEP = 4
HELD_BYTES = 1024 * 1024
"""Lines kept in memory while the trail cannot be written; later ones are counted as lost."""


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
        self._finalizer: weakref.finalize[[int], RotatingAuditLog] | None = None
        self._failing = ""
        """Why the last write failed ("" while lines are written)."""
        self._failing_since = 0.0
        self._held: deque[bytes] = deque()
        self._held_bytes = 0
        self._lost = 0

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

    def unwritable(self) -> str:
        """Why audit lines cannot be written now; "" when they can. A log that was failing
        tries once more first (its held lines, then the ``audit_resumed`` event)."""
        if self._failing:
            self._retry()
        return self._failing

    def _append(self, line: bytes, what: str) -> None:
        if self._failing:
            self._hold(line)
            self._retry()
            return
        try:
            self._write(line)
        except OSError as exc:
            self._fail(exc)
            log.error("audit record %s not written: %s", what, exc)
            self._hold(line)

    def _write(self, line: bytes) -> None:
        """One whole line, or ``OSError``; a line cut short (the disk filled in the middle of
        it) is taken back off the file, so the next line does not join its torn end."""
        fd = self._fd if self._fd is not None else self._open()
        if self._size and self._size + len(line) > self._max_bytes:
            self._rotate()
            fd = self._open()
        written = os.write(fd, line)
        if written != len(line):
            try:
                os.ftruncate(fd, self._size)
            except OSError:
                pass
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        self._size += written

    def _fail(self, exc: OSError) -> None:
        self.close()
        if not self._failing:
            self._failing_since = time.time()
        self._failing = _reason(exc, self.path)

    def _hold(self, line: bytes) -> None:
        if self._held_bytes + len(line) > HELD_BYTES:
            self._lost += 1
            return
        self._held.append(line)
        self._held_bytes += len(line)

    def _retry(self) -> None:
        """Write the held lines in order, then say the trail resumed; stop at the first failure
        (the rest stay held, the log stays failing)."""
        try:
            while self._held:
                line = self._held[0]
                self._write(line)
                self._held.popleft()
                self._held_bytes -= len(line)
            self._write(
                event_line(
                    "audit_resumed",
                    time.time(),
                    since=rfc3339(self._failing_since),
                    error=self._failing,
                    lost=self._lost,
                )
            )
        except OSError as exc:
            self._fail(exc)
            return
        log.warning(
            "audit records are written again (they could not be since %s: %s; %d lost)",
            rfc3339(self._failing_since), self._failing, self._lost,
        )
        self._failing, self._lost = "", 0

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


def _reason(exc: OSError, path: Path) -> str:
    """A write failure as a refusal words it: what went wrong and where."""
    if isinstance(exc, UnsafeFile):
        return str(exc)
    return f"{exc.strerror or exc} at {path}"


def _close_quietly(fd: int) -> None:
    try:
        os.close(fd)
    except OSError:
        pass
