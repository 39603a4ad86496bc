"""Starting an instance's service in the background, and saying why it stopped if it does.

The CLI and the MCP connector start it the same way: detached in a session of its own, so a
client that kills its connector's process group does not take the service with it, with no
inherited standard streams, and its output appended to the instance log. A service that stops
as it starts has then left its reason there, and the starter reads it back instead of waiting
out its whole budget and reporting only a timeout.
"""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
from pathlib import Path

import attrs

from ..files.safe import held_lock_text, open_private, open_private_reader
from ..transport.endpoints import INSTANCE_ENV, Endpoints
from ..untrusted.excerpt import excerpt

_REASON_WINDOW = 16 * 1024
"""How much of the end of this start's log output is read for its last words."""
_REASON_LIMIT = 400


def service_command(instance: str, *extra: str) -> list[str]:
    return [sys.executable, "-m", "ghostlight_trio", "service", "--instance", instance, *extra]


@attrs.frozen
class ServiceLaunch:
    """One background start: the process, and where its own output begins in the log."""

    process: subprocess.Popen[bytes]
    endpoints: Endpoints
    log_offset: int

    def failure(self) -> str | None:
        """Why this start came to nothing, or None while it may still serve.

        It failed once its process has stopped and no other service holds the instance: a
        start that lost the race to another one stops too, but the winner then serves. The
        text gives the exit status, the service's last words and where its log is."""
        status = self.process.poll()
        if status is None or service_lock_holder(self.endpoints) is not None:
            return None
        log_file = self.endpoints.log_file
        said = last_words(log_file, self.log_offset)
        return (
            f"the Ghostlight service for instance {self.endpoints.instance!r} stopped as it"
            f" started (exit status {status})" + (f": {said}" if said else "")
            + f" (log: {log_file})"
        )


def spawn_service(endpoints: Endpoints, *extra: str) -> ServiceLaunch:
    """Start the service detached, its stdout and stderr appended to the instance log.

    Raises ``UnsafeDirectoryError`` or ``OSError`` when the instance's directories or log cannot
    be made or opened: the service could not start there either, and this says why at once.
    """
    endpoints.ensure_private_dirs()
    fd = open_private(endpoints.log_file, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
    try:
        offset = os.fstat(fd).st_size
        process = subprocess.Popen(
            service_command(endpoints.instance, *extra),
            stdin=subprocess.DEVNULL,
            stdout=fd,
            stderr=fd,
            start_new_session=True,
            env={**os.environ, INSTANCE_ENV: endpoints.instance},
        )
    finally:
        os.close(fd)
    return ServiceLaunch(process, endpoints, offset)


class SpawnClaim:
    """The right to start the instance's service now: an exclusive lock on its spawn lock
    file, held until ``release`` (or until this process ends, however it ends)."""

    def __init__(self, fd: int) -> None:
        self._fd: int | None = fd

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # which drops the lock
            self._fd = None


def claim_spawn(endpoints: Endpoints) -> SpawnClaim | None:
    """Take the instance's spawn lock without waiting; None while another process holds it,
    that is, is starting the service: wait for its socket rather than start another.

    Raises ``UnsafeDirectoryError`` or ``OSError`` as ``spawn_service`` does. The lock file
    stays (owner-only, in the owner-only runtime dir); a lock is never stale, since the
    kernel drops it with its holder.
    """
    endpoints.ensure_private_dirs()
    fd = open_private(endpoints.spawn_lock_file, os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    except BaseException:
        os.close(fd)
        raise
    return SpawnClaim(fd)


def service_lock_holder(endpoints: Endpoints) -> int | None:
    """The pid of the service holding the instance lock (-1 when it wrote none), or None when no
    service holds it. A start that lost the race to another one finds it here."""
    text = held_lock_text(endpoints.lock_file)
    if text is None:
        return None
    first = text.split("\n", 1)[0].strip()
    return int(first) if first.isdigit() else -1


def last_words(log_file: Path, offset: int = 0) -> str:
    """What the service last said in ``log_file`` after ``offset``: its last line that is not
    traceback scaffolding (so a traceback gives its exception), shortened; empty if none."""
    try:
        with open_private_reader(log_file) as log:
            size = log.seek(0, os.SEEK_END)
            log.seek(max(offset, size - _REASON_WINDOW))
            tail = log.read()
    except OSError:
        return ""
    for raw in reversed(tail.decode(errors="replace").splitlines()):
        line = raw.strip().lstrip("|").strip()  # exception groups indent with "| "
        if not line or not line.strip("+-^~ ") or line.startswith(_SCAFFOLDING):
            continue
        return excerpt(line.removeprefix("ghostlight: "), _REASON_LIMIT)
    return ""


_SCAFFOLDING = ("Traceback (", 'File "', "During handling of", "The above exception")
