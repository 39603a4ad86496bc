"""Process level: connectors that all find the service stopped start it once between them.

Each ``BridgeConnector`` below is what one ``ghostlight-mcp-connector`` process runs; their
first attempts all fail before any service can be up (no secret, no socket), so without the
spawn lock every one of them would start a service. The count comes from a hook on the
connector's spawn call, and the service log shows no start that lost the race."""

from __future__ import annotations

import signal

import pytest
import trio
from ghostlight_mcp_connector import bridge_client
from ghostlight_mcp_connector.bridge_client import BridgeConnector

from ghostlight_trio.launch.spawn import ServiceLaunch, service_lock_holder, spawn_service
from ghostlight_trio.transport.endpoints import Endpoints
from ghostlight_trio.transport.stream import MessageStream

pytestmark = pytest.mark.process

CONNECTORS = 5
BUDGET = 60.0
"""Generous: a bound against a hang on a loaded machine, never what is tested."""


async def _connect_all(
    endpoints: Endpoints, monkeypatch: pytest.MonkeyPatch
) -> tuple[list[ServiceLaunch], list[MessageStream]]:
    spawned: list[ServiceLaunch] = []

    def counting_spawn(endpoints: Endpoints, *extra: str) -> ServiceLaunch:
        launch = spawn_service(endpoints, *extra)
        spawned.append(launch)
        return launch

    monkeypatch.setattr(bridge_client, "spawn_service", counting_spawn)
    streams: list[MessageStream] = []

    async def connect() -> None:
        stream, hello = await BridgeConnector(endpoints, budget=BUDGET).connect()
        assert hello.instance == endpoints.instance
        streams.append(stream)

    try:
        async with trio.open_nursery() as nursery:
            for _ in range(CONNECTORS):
                nursery.start_soon(connect)
    except BaseException:
        await _close(streams)
        _stop(spawned, signal.SIGKILL)
        raise
    return spawned, streams


async def _close(streams: list[MessageStream]) -> None:
    for stream in streams:
        await stream.aclose()


def _stop(spawned: list[ServiceLaunch], signum: int = signal.SIGTERM) -> None:
    for launch in spawned:
        if launch.process.poll() is None:
            launch.process.send_signal(signum)
        launch.process.wait(30)


def _starts_that_lost(endpoints: Endpoints) -> int:
    return endpoints.log_file.read_text(errors="replace").count("is already running")


async def test_connectors_that_find_no_service_start_it_once(
    endpoints: Endpoints, monkeypatch: pytest.MonkeyPatch
) -> None:
    spawned, streams = await _connect_all(endpoints, monkeypatch)
    try:
        assert len(spawned) == 1, [launch.process.pid for launch in spawned]
        assert len(streams) == CONNECTORS
        assert service_lock_holder(endpoints) == spawned[0].process.pid
        assert _starts_that_lost(endpoints) == 0
        assert endpoints.spawn_lock_file.exists()  # and nobody holds it any more:
        claim = bridge_client.claim_spawn(endpoints)
        assert claim is not None
        claim.release()
    finally:
        await _close(streams)
        _stop(spawned)


async def test_after_a_kill_9_the_next_connectors_start_one_fresh_service(
    endpoints: Endpoints, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A service killed with SIGKILL leaves its socket, its lock file and the spawn lock file
    behind; none of them is held, so the next connectors start one service and reach it."""
    first, streams = await _connect_all(endpoints, monkeypatch)
    await _close(streams)
    _stop(first, signal.SIGKILL)
    assert endpoints.edge_socket.exists() and endpoints.lock_file.exists()
    assert service_lock_holder(endpoints) is None
    spawned, streams = await _connect_all(endpoints, monkeypatch)
    try:
        assert len(spawned) == 1
        assert len(streams) == CONNECTORS
        assert service_lock_holder(endpoints) == spawned[0].process.pid
        assert spawned[0].process.pid != first[0].process.pid
        assert _starts_that_lost(endpoints) == 0
    finally:
        await _close(streams)
        _stop(spawned)
    assert not any(launch.process.poll() is None for launch in spawned)
