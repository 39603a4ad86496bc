"""One engine per instance: whoever holds the exclusive lock on ``service.lock`` is the engine."""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager

from ..transport.endpoints import Endpoints


class ServiceAlreadyRunning(RuntimeError):
    """Another service already serves this instance; the CLI prints this and exits 1."""


@contextmanager
def instance_lock(endpoints: Endpoints) -> Iterator[None]:
    """Hold the instance lock for the life of the service, or fail fast naming the holder."""
    fd = os.open(endpoints.lock_file, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = _read_pid(fd)
        os.close(fd)
        raise ServiceAlreadyRunning(
            f"ghostlight service for instance {endpoints.instance!r} is already running"
            f" (pid {holder})"
        ) from None
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        yield
    finally:
        os.close(fd)


def _read_pid(fd: int) -> str:
    try:
        text = os.pread(fd, 32, 0).decode(errors="replace").strip()
    except OSError:
        text = ""
    return text if text.isdigit() else "unknown"
