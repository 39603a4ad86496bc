"""Reading Ghostlight's own files without being held up or misled by what stands in their place.

Every policy, settings and data-directory file is read through here: the open never waits (a
FIFO with no writer, a device), the file must be a regular one, a link is refused where
Ghostlight keeps its own files, someone else's file is refused where only the user's may stand,
and no more than a bound is ever read. Each refusal is an ``UnsafeFile`` whose text names the
path, what is there, and what to do about it.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path


class UnsafeFile(OSError):
    """What stands at ``path`` is not a file Ghostlight will use; ``reason`` says why and what
    to do (its text starts with "is", so ``f"{path} {reason}"`` reads as a sentence)."""

    def __init__(self, path: Path, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"{path} {reason}")

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


_LINK = "is a symbolic link, which Ghostlight does not follow here; put the file itself there (or remove the link)"


def check_regular(path: Path, info: os.stat_result, *, owned: bool) -> None:
    """Refuse anything but a regular file (and, when ``owned``, one that is not the user's)."""
    if stat.S_ISLNK(info.st_mode):
        raise UnsafeFile(path, _LINK)
    if not stat.S_ISREG(info.st_mode):
        kind = kind_of(info.st_mode)
        raise UnsafeFile(path, f"is {kind}, not a regular file; put a regular file there (or remove it)")
    if owned and info.st_uid != os.getuid():
        raise UnsafeFile(
            path,
            f"belongs to uid {info.st_uid}, not to you (uid {os.getuid()}); Ghostlight uses only"
            " your own files here: remove it (or take it over with chown)",
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
            raise UnsafeFile(path, _LINK) from None
        raise
    try:
        info = os.fstat(fd)
        check_regular(path, info, owned=owned)  # what was opened, if it changed since
        if info.st_size > limit:
            raise UnsafeFile(path, _too_large(info.st_size, limit))
        chunks: list[bytes] = []
        size = 0
        while size <= limit:
            chunk = os.read(fd, limit + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:  # it grew while being read
            raise UnsafeFile(path, _too_large(size, limit))
        return b"".join(chunks)
    finally:
        os.close(fd)


def _too_large(size: int, limit: int) -> str:
    return (
        f"is larger than {limit} bytes ({size} or more), far past anything Ghostlight keeps"
        " there; it was not read: check that it is the right file"
    )
