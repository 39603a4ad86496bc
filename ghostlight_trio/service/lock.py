"""One engine per instance: whoever holds the exclusive locks on ``service.lock`` is the engine.

There are two: one beside the sockets (the runtime directory) and one in the data directory,
which holds what the engine writes (the audit trail, the secret, the browser profile). A shell
and a client that see different runtime directories (``XDG_RUNTIME_DIR`` set in one and not the
other) would each find no service beside their sockets; the data lock still stops a second
engine on the same data, and says where the first one's sockets are."""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import attrs

from ..files.safe import held_lock_text, lock_text, open_private
from ..transport.endpoints import Endpoints

LOCK_NAME = "service.lock"


class ServiceAlreadyRunning(RuntimeError):
    """Another service already serves this instance; the CLI prints this and exits 1."""


@attrs.frozen
class Holder:
    pid: str
    runtime_dir: str
    """Where the holder's sockets are ("" when it did not say)."""


def data_lock_file(endpoints: Endpoints) -> Path:
    return endpoints.data_dir / LOCK_NAME


@contextmanager
def instance_lock(endpoints: Endpoints) -> Iterator[None]:
    """Hold the instance locks for the life of the service, or fail fast naming the holder."""
    with ExitStack() as held:
        holder = _take(held, endpoints.lock_file)
        if holder is not None:
            raise ServiceAlreadyRunning(
                f"ghostlight service for instance {endpoints.instance!r} is already running"
                f" (pid {holder.pid})"
            )
        holder = _take(held, data_lock_file(endpoints), str(endpoints.runtime_dir))
        if holder is not None:
            raise ServiceAlreadyRunning(
                f"ghostlight service for instance {endpoints.instance!r} is already running"
                f" (pid {holder.pid}) on the same data ({endpoints.data_dir}), with its sockets"
                f" under {holder.runtime_dir or 'another runtime directory'}, not under"
                f" {endpoints.runtime_dir}: this process sees another XDG_RUNTIME_DIR than the"
                " one that started it. Start clients and the CLI with the same XDG_RUNTIME_DIR"
            )
        yield


def data_lock_holder(endpoints: Endpoints) -> Holder | None:
    """The live service holding this instance's data, if any (whatever its runtime directory)."""
    text = held_lock_text(data_lock_file(endpoints))
    return None if text is None else _holder(text)


def _take(held: ExitStack, path: Path, runtime_dir: str = "") -> Holder | None:
    """Lock ``path`` for the rest of ``held``; the holder instead when another process has it."""
    fd = open_private(path, os.O_RDWR | os.O_CREAT)  # truncated below: never through a link
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = _holder(lock_text(fd))
        os.close(fd)
        return holder
    held.callback(os.close, fd)
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{os.getpid()}\n{runtime_dir}\n".encode(), 0)
    return None


def _holder(text: str) -> Holder:
    """The holder a lock file names: its pid on the first line, its runtime directory next."""
    lines = text.splitlines()
    pid = lines[0].strip() if lines else ""
    return Holder(
        pid=pid if pid.isdigit() else "unknown",
        runtime_dir=lines[1].strip() if len(lines) > 1 else "",
    )
