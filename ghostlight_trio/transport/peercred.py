"""Peer credentials of a connected Unix socket: only the service's own uid is admitted."""

from __future__ import annotations

import os
import socket
import struct
import sys

import attrs


@attrs.frozen
class PeerCredentials:
    pid: int
    uid: int
    gid: int


def peer_credentials(sock: socket.socket) -> PeerCredentials:
    """Read the kernel's record of who is on the other end (never what the peer claims)."""
    if sys.platform.startswith("linux"):
        raw = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
        pid, uid, gid = struct.unpack("3i", raw)
        return PeerCredentials(pid=pid, uid=uid, gid=gid)
    # macOS / BSD: getpeereid via LOCAL_PEERCRED is not exposed by Python; xucred layout.
    local_peercred = 0x001
    raw = sock.getsockopt(0, local_peercred, struct.calcsize("iih16i"))
    _version, uid, ngroups, *groups = struct.unpack("iih16i", raw)
    return PeerCredentials(pid=0, uid=uid, gid=groups[0] if ngroups else -1)


def is_same_user(sock: socket.socket) -> bool:
    """True when the peer runs as this process's uid."""
    try:
        return peer_credentials(sock).uid == os.getuid()
    except OSError:
        return False
