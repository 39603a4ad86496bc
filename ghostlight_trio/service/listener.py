"""The owner-only edge socket: created 0600 inside the 0700 runtime dir, while holding the lock."""

from __future__ import annotations

import os
import socket
import stat
from pathlib import Path

import trio


def bind_owner_only_socket(path: Path, *, backlog: int = 128) -> trio.SocketListener:
    """Bind a fresh Unix socket at ``path``. Call only while holding the instance lock, because
    whatever is at ``path`` is a stale leftover and is removed.

    Binding a local path is immediate, so it is done inline rather than in a worker thread. The
    socket is bound under a temporary name and renamed into place only once it listens, so a
    client that sees the path never meets a refused connection.
    """
    _remove_stale(path)
    pending = path.with_name(path.name + ".new")
    _remove_stale(pending)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    previous = os.umask(0o177)
    try:
        sock.bind(str(pending))
        os.chmod(pending, 0o600)
        sock.listen(backlog)
        os.rename(pending, path)
    except BaseException:
        sock.close()
        _remove_stale(pending)
        raise
    finally:
        os.umask(previous)
    return trio.SocketListener(trio.socket.from_stdlib_socket(sock))


def remove_socket_file(path: Path) -> None:
    """Best-effort cleanup at shutdown (still under the lock)."""
    try:
        if stat.S_ISSOCK(path.lstat().st_mode):
            path.unlink()
    except OSError:
        pass


class SocketPathBlocked(RuntimeError):
    """Something that is not a stale socket sits where the socket goes; it is not ours to
    remove."""


def _remove_stale(path: Path) -> None:
    try:
        mode = path.lstat().st_mode
    except FileNotFoundError:
        return
    if stat.S_ISDIR(mode):
        raise SocketPathBlocked(f"{path} is a directory; remove it before starting the service")
    path.unlink()
