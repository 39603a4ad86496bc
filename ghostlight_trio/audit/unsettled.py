"""Calls a stopped service left unsettled, found in the audit trail by the next service.

Each call writes a ``dispatched`` event before its first effect and its own record when it
settles. A ``dispatched`` event with no record after it names a call that was cut off while its
effect was out: the service was killed, or crashed. The next service records each such call as
what it is, an unknown outcome, so the trail names every call that may have acted. A recovered
record settles its event too, so no call is recovered twice.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import BinaryIO

import trio

from ..files.safe import open_private_reader
from .log import RotatingAuditLog
from .records import generations, parse_record

log = logging.getLogger("ghostlight.audit")

CHUNK = 1 << 20
"""Read and scanned at a time, with a checkpoint between, so a long trail never stalls calls."""

_ENTRY = re.compile(
    rb'^\{"time":"[^"]*",(?:"event":"dispatched","call":"([^"\\]*)"|"call":"([^"\\]*)")', re.M
)
"""The start of a ``dispatched`` event (group 1) or of a call's own record (group 2). Work ids
never hold a quote or a backslash."""


class Trail:
    """The trail as it stood when this service started: the newest two files, opened then, so
    that neither the new service's own lines nor a rotation change what is read."""

    def __init__(self, files: Sequence[tuple[BinaryIO, int]]) -> None:
        self._files = list(files)

    @classmethod
    def open(cls, path: Path) -> Trail:
        files = []
        for file in generations(path)[-2:]:
            try:
                handle = open_private_reader(file)
            except OSError as exc:
                if not isinstance(exc, FileNotFoundError):
                    log.error("the audit trail's %s is not read for unsettled calls: %s", file, exc)
                continue
            files.append((handle, _size(handle)))
        return cls(files)

    def close(self) -> None:
        for handle, _ in self._files:
            handle.close()
        self._files.clear()

    async def unsettled(self) -> list[dict[str, object]]:
        """The ``dispatched`` events with no record of their call after them, oldest first."""
        waiting: dict[bytes, bytes] = {}
        for handle, size in self._files:
            left, carry = size, b""
            while left > 0:
                chunk = await trio.to_thread.run_sync(handle.read, min(CHUNK, left))
                if not chunk:
                    break
                left -= len(chunk)
                data = carry + chunk
                whole = data.rfind(b"\n") + 1
                carry = data[whole:]
                _scan(data[:whole], waiting)
                await trio.lowlevel.checkpoint()
        found = []
        for line in waiting.values():
            record = parse_record(line)
            if record is not None:
                found.append(record)
        return found


def _scan(block: bytes, waiting: dict[bytes, bytes]) -> None:
    for match in _ENTRY.finditer(block):
        dispatched, settled = match.group(1), match.group(2)
        if dispatched is not None:
            end = block.find(b"\n", match.end())
            waiting[dispatched] = block[match.start() : end if end >= 0 else len(block)]
        elif waiting:
            waiting.pop(settled, None)


def _size(handle: BinaryIO) -> int:
    return os.fstat(handle.fileno()).st_size


async def record_unsettled(trail: Trail, audit: RotatingAuditLog) -> int:
    """Give each call the previous service left unsettled its record; how many there were."""
    try:
        found = await trail.unsettled()
    finally:
        trail.close()
    for event in found:
        audit.unsettled(event)
        log.warning(
            "work %s (%s) was cut off when the previous service stopped; recorded as outcome unknown",
            event.get("call"),
            event.get("tool"),
        )
    return len(found)

