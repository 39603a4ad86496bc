"""An operating-system error as a sentence a person reads, not ``[Errno 2] ...``."""

from __future__ import annotations

import errno

_PLAIN = {
    errno.ENOENT: "does not exist",
    errno.EACCES: "is not open to you (permission denied)",
    errno.EPERM: "is not open to you (operation not permitted)",
    errno.EISDIR: "is a directory",
    errno.ENOTDIR: "has a part that is no directory",
    errno.ECONNREFUSED: "has nothing listening on it",
    errno.ELOOP: "is a symbolic link, which is not followed",
    errno.ENOSPC: "cannot be written: the disk is full",
    errno.EROFS: "is on a read-only file system",
}


def os_problem(exc: OSError) -> str:
    """``exc`` as "<file> does not exist" and the like; its own text when it has no errno."""
    if exc.errno is None:
        return str(exc)
    what = _PLAIN.get(exc.errno) or (exc.strerror or str(exc)).lower()
    where = exc.filename if exc.filename is not None else "it"
    return f"{where} {what}"
