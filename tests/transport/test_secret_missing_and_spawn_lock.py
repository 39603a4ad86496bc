"""A socket that answers while this process has no secret, and the one-start-at-a-time lock."""

from __future__ import annotations

import os
import socket
import stat
import subprocess
import sys

import pytest
import trio

from ghostlight_trio.launch.spawn import claim_spawn
from ghostlight_trio.transport.endpoints import Endpoints
from ghostlight_trio.transport.handshake import SecretMissing, open_bridge


async def _listen(endpoints: Endpoints) -> trio.socket.SocketType:
    endpoints.ensure_private_dirs()
    listener = trio.socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    await listener.bind(str(endpoints.edge_socket))
    listener.listen(8)
    return listener


async def test_no_secret_next_to_a_listening_socket_says_so(endpoints: Endpoints) -> None:
    """Not 'nothing runs yet' (a start could not help: the instance is taken) and not a
    squatter (nothing was verified, nor spoken to): the two sides see different data dirs."""
    listener = await _listen(endpoints)
    try:
        with pytest.raises(SecretMissing) as caught:
            await open_bridge(endpoints)
    finally:
        listener.close()
    text = str(caught.value)
    assert f"a Ghostlight service is listening on {endpoints.edge_socket}" in text
    assert f"this process has no secret at {endpoints.secret_file}" in text
    assert "different data directories (GHOSTLIGHT_HOME / XDG_DATA_HOME)" in text
    assert "re-run `ghostlight install` from the same environment as the service" in text
    assert not isinstance(caught.value, FileNotFoundError)  # callers' "not running" case
    assert isinstance(caught.value, OSError)  # callers that only know OSError still cope


async def test_no_secret_and_nothing_listening_is_still_not_running(endpoints: Endpoints) -> None:
    endpoints.ensure_private_dirs()
    with pytest.raises(FileNotFoundError) as caught:
        await open_bridge(endpoints)
    assert not isinstance(caught.value, SecretMissing)
    endpoints.edge_socket.touch()  # a stale socket file nobody listens on
    with pytest.raises(FileNotFoundError) as caught:
        await open_bridge(endpoints)
    assert not isinstance(caught.value, SecretMissing)


def test_one_spawn_claim_at_a_time_and_owner_only(endpoints: Endpoints) -> None:
    first = claim_spawn(endpoints)
    assert first is not None
    assert stat.S_IMODE(endpoints.spawn_lock_file.stat().st_mode) == 0o600
    assert endpoints.spawn_lock_file.parent == endpoints.runtime_dir
    assert claim_spawn(endpoints) is None  # another descriptor, even in this process
    first.release()
    first.release()  # twice is harmless
    second = claim_spawn(endpoints)
    assert second is not None
    second.release()


def test_a_claim_dies_with_its_holder(endpoints: Endpoints) -> None:
    """A starter killed with SIGKILL leaves the file but no lock: the next one claims it."""
    endpoints.ensure_private_dirs()
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys\n"
            "from ghostlight_trio.transport.endpoints import Endpoints\n"
            "from ghostlight_trio.launch.spawn import claim_spawn\n"
            "claim = claim_spawn(Endpoints.for_instance())\n"
            "print('held' if claim else 'busy', flush=True)\n"
            "sys.stdin.read()\n",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env=dict(os.environ),
    )
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline() == b"held\n"
        assert claim_spawn(endpoints) is None
    finally:
        holder.kill()
        holder.wait()
    assert endpoints.spawn_lock_file.exists()
    claim = claim_spawn(endpoints)
    assert claim is not None
    claim.release()
