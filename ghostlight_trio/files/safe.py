"""Opening Ghostlight's own files without being held up or misled by what stands in their place.

Every policy, settings and data-directory file is opened through here: the open never waits (a
FIFO with no writer, a device), the file must be a regular one, a link is refused where
Ghostlight keeps its own files, someone else's file is refused where only the user's may stand,
a file that has another name besides (a hard link) is never written, and no more than a bound is
ever read. Each refusal is an ``UnsafeFile`` whose text names the path, what is there, and what
to do about it.
"""

from __future__ import annotations

import errno
import fcntl
import io
import logging
import os
import stat
import tempfile
from pathlib import Path
from typing import BinaryIO


class UnsafeFile(OSError):
    """What stands at ``path`` is not a file Ghostlight will use. ``finding`` says what is there
    (it starts with "is" or "has"), ``fix`` what to do; ``reason`` is both."""

    def __init__(self, path: Path, finding: str, fix: str) -> None:
        self.path = path
        self.finding = finding
        self.fix = fix
        self.reason = f"{finding}; {fix}"
        super().__init__(f"{path} {self.reason}")

    def __str__(self) -> str:
        return f"{self.path} {self.reason}"


def kind_of(mode: int) -> str:
    """What a file of this mode is, as a refusal names it."""
    for test, name in (
        (stat.S_ISFIFO, "a FIFO (named pipe)"),
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return name
    return "not a regular file"


_LINK = "is a symbolic link, which Ghostlight does not follow here"
_LINK_FIX = "put the file itself there (or remove the link)"


def check_regular(path: Path, info: os.stat_result, *, owned: bool) -> None:
    """Refuse anything but a regular file (and, when ``owned``, one that is not the user's)."""
    if stat.S_ISLNK(info.st_mode):
        raise UnsafeFile(path, _LINK, _LINK_FIX)
    if not stat.S_ISREG(info.st_mode):
        kind = kind_of(info.st_mode)
        raise UnsafeFile(path, f"is {kind}, not a regular file", "put a regular file there (or remove it)")
    if owned and info.st_uid != os.getuid():
        raise UnsafeFile(
            path,
            f"belongs to uid {info.st_uid}, not to you (uid {os.getuid()})",
            "Ghostlight uses only your own files here: remove it (or take it over with chown)",
        )


def read_regular(
    path: Path, *, limit: int, follow_links: bool = False, owned: bool = True
) -> bytes | None:
    """The whole of the regular file at ``path``, at most ``limit`` bytes; None when nothing is
    there. Never blocks on what stands there and never reads past ``limit`` + 1 bytes.

    ``follow_links``: a link is followed (a file the user or the machine's administrator named
    may be one) — what it leads to is still checked. ``owned``: the file must be the user's.
    Raises ``UnsafeFile`` for a refusal and ``OSError`` for any other failure to read.
    """
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | (0 if follow_links else os.O_NOFOLLOW)
    try:
        # Looked at before it is opened, so not even the open reaches a device or a FIFO.
        check_regular(path, os.stat(path, follow_symlinks=follow_links), owned=owned)
        fd = os.open(path, flags)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if isinstance(exc, UnsafeFile):
            raise
        if exc.errno == errno.ELOOP and not follow_links:
            raise UnsafeFile(path, _LINK, _LINK_FIX) from None
        raise
    try:
        info = os.fstat(fd)
        check_regular(path, info, owned=owned)  # what was opened, if it changed since
        if info.st_size > limit:
            raise UnsafeFile(path, *_too_large(info.st_size, limit))
        chunks: list[bytes] = []
        size = 0
        while size <= limit:
            chunk = os.read(fd, limit + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:  # it grew while being read
            raise UnsafeFile(path, *_too_large(size, limit))
        return b"".join(chunks)
    finally:
        os.close(fd)


def _too_large(size: int, limit: int) -> tuple[str, str]:
    return (
        f"is larger than {limit} bytes ({size} or more), far past anything Ghostlight keeps"
        " there",
        "it was not read: check that it is the right file",
    )


def open_private(path: Path, flags: int, *, refuse_shared: bool = False) -> int:
    """A descriptor on the user's own regular file ``path`` in an instance directory, opened
    with ``flags`` (``O_CREAT`` makes it 0600). Never through a link, never a FIFO, device or
    directory, never another user's, never one with a second name (a hard link, through which
    a write would land in another file). A file others may read is made owner-only, or, with
    ``refuse_shared``, refused (what it holds may already be known). Raises ``UnsafeFile``."""
    try:
        check_regular(path, os.lstat(path), owned=True)  # not even opened when it is none
    except FileNotFoundError:
        pass
    try:
        fd = os.open(path, flags | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, 0o600)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise UnsafeFile(path, _LINK, _LINK_FIX) from None
        raise
    try:
        info = os.fstat(fd)
        check_regular(path, info, owned=True)
        if info.st_nlink > 1:
            raise UnsafeFile(
                path,
                f"has {info.st_nlink - 1} other name(s) (hard links), so what Ghostlight writes"
                " there would change another file too",
                "remove it (Ghostlight makes it again)",
            )
        shared = stat.S_IMODE(info.st_mode) & 0o077
        if shared and refuse_shared:
            raise UnsafeFile(
                path,
                f"is open to others (mode {stat.S_IMODE(info.st_mode):04o}), who may have read it",
                "remove it (Ghostlight makes a fresh one)",
            )
        if shared:
            os.fchmod(fd, stat.S_IMODE(info.st_mode) & 0o700)
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
    except BaseException:
        os.close(fd)
        raise
    return fd


def open_private_reader(path: Path) -> BinaryIO:
    """``open_private`` for reading, as a binary file object."""
    return os.fdopen(open_private(path, os.O_RDONLY), "rb")


def replace_private(path: Path, data: bytes, *, mode: int = 0o600) -> None:
    """Put ``data`` at ``path`` whole (a crash leaves the old file or the new one): written to
    a fresh file of its own beside it, made ``mode``, then renamed over ``path``. A link at
    ``path`` is replaced, never written through."""
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fchmod(handle.fileno(), mode)
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


class PrivateFileHandler(logging.FileHandler):
    """A log file appended to through ``open_private``: never through a link, never a FIFO,
    never another user's file (the refusal says which and why)."""

    def __init__(self, path: Path) -> None:
        super().__init__(path, encoding="utf-8")

    def _open(self) -> io.TextIOWrapper:
        fd = open_private(Path(self.baseFilename), os.O_WRONLY | os.O_APPEND | os.O_CREAT)
        return io.TextIOWrapper(os.fdopen(fd, "ab"), encoding="utf-8", errors=self.errors)


def held_lock_text(path: Path, limit: int = 4096) -> str | None:
    """What the process holding the lock on ``path`` wrote in it (a service's pid, its runtime
    directory); None while no process holds it, or when the file is absent or one this process
    would not open (whoever takes the lock says why then)."""
    try:
        fd = open_private(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return lock_text(fd, limit)
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


def lock_text(fd: int, limit: int = 4096) -> str:
    """What a lock file open on ``fd`` says ("" when it cannot be read)."""
    try:
        return os.pread(fd, limit, 0).decode(errors="replace")
    except OSError:
        return ""
