"""Instance naming, owner-only paths, the secret file and the anti-squat proof."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import stat
import subprocess
import sys

import pytest
import trio

from ghostlight_trio.transport import bridge
from ghostlight_trio.transport.endpoints import (
    Endpoints,
    InstanceNameError,
    UnsafeDirectoryError,
    validate_instance,
)
from ghostlight_trio.transport.handshake import (
    ServiceUnresponsive,
    accept_bridge,
    open_bridge,
)
from ghostlight_trio.transport.proof import (
    SQUATTER_MESSAGE,
    ProofError,
    SecretFileError,
    load_or_create_secret,
    load_secret,
)
from ghostlight_trio.transport.stream import BridgeClosed, MessageStream


@pytest.mark.parametrize("name", ["", None])
def test_default_instance(name: str | None) -> None:
    assert validate_instance(name) == "default"


@pytest.mark.parametrize("name", ["../x", "A", "a b", "-x", "x" * 41, "a/b", "é", "abc\n"])
def test_bad_instance_names_are_refused(name: str) -> None:
    with pytest.raises(InstanceNameError, match="invalid instance name"):
        validate_instance(name)


def test_instances_never_share_paths(instance_env: dict[str, str]) -> None:
    one, two = Endpoints.for_instance("one"), Endpoints.for_instance("two")
    for field in ("runtime_dir", "data_dir", "edge_socket", "browser_socket", "secret_file"):
        assert getattr(one, field) != getattr(two, field)


def test_private_dirs_are_0700(endpoints: Endpoints) -> None:
    endpoints.ensure_private_dirs()
    for directory in (endpoints.runtime_dir, endpoints.data_dir):
        assert stat.S_IMODE(directory.stat().st_mode) == 0o700


def test_the_dirs_holding_an_instance_are_ours_and_closed(endpoints: Endpoints) -> None:
    """The directory each instance dir sits in is created 0700; one that others could write to
    is tightened, since whoever can write there could swap the instance dir itself."""
    endpoints.ensure_private_dirs()
    for directory in (endpoints.runtime_dir, endpoints.data_dir):
        assert stat.S_IMODE(directory.parent.stat().st_mode) == 0o700
    os.chmod(endpoints.runtime_dir.parent, 0o777)
    endpoints.ensure_private_dirs()
    assert stat.S_IMODE(endpoints.runtime_dir.parent.stat().st_mode) == 0o755


def test_a_parent_dir_owned_by_another_user_is_refused(
    endpoints: Endpoints, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Seen from another uid, the parent this user made is someone else's: nothing is made
    below it."""
    parent = endpoints.runtime_dir.parent
    parent.mkdir(parents=True, exist_ok=True)
    owner = parent.stat().st_uid
    monkeypatch.setattr(os, "getuid", lambda: owner + 1)
    with pytest.raises(UnsafeDirectoryError, match=f"owned by uid {owner}, not by you"):
        endpoints.ensure_private_dirs()
    assert not endpoints.runtime_dir.exists()


def test_long_runtime_paths_fall_back_to_a_short_one(tmp_path, monkeypatch) -> None:
    deep = tmp_path / ("d" * 60) / ("e" * 60)
    deep.mkdir(parents=True)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(deep))
    endpoints = Endpoints.for_instance("longpath")
    assert len(str(endpoints.browser_socket)) <= 100
    assert str(deep) not in str(endpoints.edge_socket)
    endpoints.ensure_private_dirs()
    assert endpoints.edge_socket.parent.is_dir()
    shutil.rmtree(endpoints.runtime_dir.parent)  # the short root, outside tmp_path


def test_without_xdg_runtime_dir_the_fallback_is_quiet_and_shared() -> None:
    """Clients may start connectors with a trimmed environment: the fallback runtime dir is then
    used without a warning on stderr, and every process resolves the same one. A fresh
    interpreter each, with warnings as errors, so nothing remembered in this one can hide one."""
    env = {key: value for key, value in os.environ.items() if key != "XDG_RUNTIME_DIR"}
    code = (
        "from ghostlight_trio.transport.endpoints import Endpoints;"
        "print(Endpoints.for_instance('quiet').edge_socket)"
    )
    runs = [
        subprocess.run(
            [sys.executable, "-W", "error", "-c", code], env=env, capture_output=True, text=True
        )
        for _ in range(2)
    ]
    assert [(run.returncode, run.stderr) for run in runs] == [(0, ""), (0, "")]
    assert runs[0].stdout == runs[1].stdout
    assert runs[0].stdout.strip().endswith("/quiet/edge.sock")


def test_secret_is_created_private_and_stable(endpoints: Endpoints) -> None:
    first = load_or_create_secret(endpoints.secret_file)
    assert stat.S_IMODE(endpoints.secret_file.stat().st_mode) == 0o600
    assert load_or_create_secret(endpoints.secret_file) == first


def test_a_shared_secret_file_is_refused(endpoints: Endpoints) -> None:
    load_or_create_secret(endpoints.secret_file)
    os.chmod(endpoints.secret_file, 0o644)
    with pytest.raises(SecretFileError):
        load_secret(endpoints.secret_file)


async def _serve_once(endpoints: Endpoints, secret: bytes, task_status=trio.TASK_STATUS_IGNORED) -> None:
    listener = trio.socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    await listener.bind(str(endpoints.edge_socket))
    listener.listen(1)
    task_status.started()
    sock, _ = await listener.accept()
    stream = MessageStream(trio.SocketStream(sock))
    await accept_bridge(stream, secret=secret, instance=endpoints.instance, service_version="t")
    with contextlib.suppress(BridgeClosed):
        await stream.receive()  # keep the stream open until the client is done
    listener.close()


async def test_the_real_secret_verifies(endpoints: Endpoints) -> None:
    endpoints.ensure_private_dirs()
    secret = load_or_create_secret(endpoints.secret_file)
    async with trio.open_nursery() as nursery:
        await nursery.start(_serve_once, endpoints, secret)
        stream, hello = await open_bridge(endpoints)
        assert hello.instance == endpoints.instance
        await stream.send(bridge.CatalogRequest(sequence=1))
        await stream.aclose()


async def test_a_squatter_without_the_secret_is_refused(endpoints: Endpoints) -> None:
    endpoints.ensure_private_dirs()
    load_or_create_secret(endpoints.secret_file)
    async with trio.open_nursery() as nursery:
        await nursery.start(_serve_once, endpoints, b"not-the-secret" * 3)
        with pytest.raises(ProofError) as caught:
            await open_bridge(endpoints)
        assert str(caught.value) == SQUATTER_MESSAGE
        nursery.cancel_scope.cancel()


async def test_a_garbage_squatter_is_refused(endpoints: Endpoints) -> None:
    endpoints.ensure_private_dirs()
    load_or_create_secret(endpoints.secret_file)
    listener = trio.socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    await listener.bind(str(endpoints.edge_socket))
    listener.listen(1)

    async def squat() -> None:
        sock, _ = await listener.accept()
        await sock.recv(4096)
        await sock.send(b"\x00\x00\x00\x05hello")

    async with trio.open_nursery() as nursery:
        nursery.start_soon(squat)
        with pytest.raises(ProofError):
            await open_bridge(endpoints)
    listener.close()


async def test_a_silent_process_of_this_user_is_called_unresponsive_not_a_squatter(
    endpoints: Endpoints, autojump_clock: trio.abc.Clock
) -> None:
    """A frozen service (here: a listener of this user that never answers) gets its own
    diagnosis, naming its pid and how to stop it; the squatter refusal is for impostors."""
    endpoints.ensure_private_dirs()
    load_or_create_secret(endpoints.secret_file)
    listener = trio.socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    await listener.bind(str(endpoints.edge_socket))
    listener.listen(1)
    with pytest.raises(ServiceUnresponsive) as caught:
        await open_bridge(endpoints)
    assert isinstance(caught.value, OSError)
    text = str(caught.value)
    assert f"(pid {os.getpid()})" in text and "did not answer within 5 s" in text
    assert f"ghostlight service stop --instance {endpoints.instance}" in text
    assert SQUATTER_MESSAGE not in text
    listener.close()
