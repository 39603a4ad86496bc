"""One engine per instance, idle shutdown that never kills settling work, clean signals."""

from __future__ import annotations

import gc
import json
import os
import signal
import stat
import subprocess
import sys
from functools import partial

import pytest
import trio

from ghostlight_trio.engine.contracts import ToolCall, ToolResult
from ghostlight_trio.service import ServiceAlreadyRunning, run_service
from ghostlight_trio.service.app import assemble
from ghostlight_trio.transport.bridge import Start, Started
from ghostlight_trio.transport.handshake import open_bridge
from ghostlight_trio.workspace import WorkspaceRegistry

from .serving import plan_only, start_service

PLAN = {"domains": [], "approach": []}


async def test_second_service_for_the_instance_fails_fast(endpoints, nursery):
    await start_service(nursery, endpoints)
    with pytest.raises(ServiceAlreadyRunning) as caught:
        await run_service(endpoints, keep_warm=True, build=plan_only, handle_signals=False)
    assert str(caught.value) == (
        f"ghostlight service for instance {endpoints.instance!r} is already running"
        f" (pid {os.getpid()})"
    )
    assert endpoints.edge_socket.exists()  # the loser touched nothing

    process = await trio.run_process(
        [sys.executable, "-m", "ghostlight_trio", "service", "--instance", endpoints.instance],
        capture_stdout=True,
        capture_stderr=True,
        check=False,
        env=dict(os.environ),
    )
    assert process.returncode == 1
    assert b"is already running (pid" in process.stderr
    nursery.cancel_scope.cancel()


async def test_stale_socket_is_replaced_and_removed_on_exit(endpoints):
    endpoints.ensure_private_dirs()
    endpoints.edge_socket.write_text("stale")
    async with trio.open_nursery() as nursery:
        await start_service(nursery, endpoints)
        stream, _ = await open_bridge(endpoints)
        await stream.aclose()
        nursery.cancel_scope.cancel()
    assert not endpoints.edge_socket.exists()


async def test_only_the_service_process_sets_its_startup_state_aside(endpoints, nursery):
    """The service's own process freezes what it built before serving, so full collections stop
    walking it; a process that merely embeds the service keeps its collector as it was."""
    frozen_before = gc.get_freeze_count()
    async with trio.open_nursery() as embedded:
        running = await start_service(embedded, endpoints)
        assert gc.get_freeze_count() == frozen_before
        assert any(tracked is running.parts.catalog for tracked in gc.get_objects())
        embedded.cancel_scope.cancel()
    try:
        running = await start_service(nursery, endpoints, own_process=True)
        assert gc.get_freeze_count() > frozen_before
        assert not any(tracked is running.parts.catalog for tracked in gc.get_objects())
        stream, _ = await open_bridge(endpoints)  # and it serves as before
        await stream.send(Start(sequence=1, operation="update_plan", arguments=PLAN))
        assert isinstance(await stream.receive(), Started)
        await stream.aclose()
    finally:
        gc.unfreeze()
        nursery.cancel_scope.cancel()


async def test_idle_shutdown(endpoints, autojump_clock):
    with trio.fail_after(100):
        await run_service(
            endpoints, keep_warm=False, idle_timeout=10, build=plan_only, handle_signals=False
        )
    assert 10 <= trio.current_time() <= 12
    assert not endpoints.edge_socket.exists()


async def test_idle_shutdown_waits_for_a_late_settling_call(endpoints, nursery, autojump_clock):
    effect_done: list[float] = []

    async def slow(call: ToolCall) -> ToolResult:
        async def effect() -> None:
            await trio.sleep(100)
            effect_done.append(trio.current_time())

        await call.effects.atomic(effect)
        return ToolResult.text("done")

    def build(e):
        return assemble(e, WorkspaceRegistry(), {"update_plan": slow}, None)

    stopped = trio.Event()
    running = None

    async def service(task_status=trio.TASK_STATUS_IGNORED):
        await run_service(
            endpoints,
            keep_warm=False,
            idle_timeout=5,
            build=build,
            handle_signals=False,
            task_status=task_status,
        )
        stopped.set()

    running = await nursery.start(service)
    stream, _ = await open_bridge(endpoints)
    await stream.send(Start(sequence=1, operation="update_plan", arguments=PLAN))
    assert isinstance(await stream.receive(), Started)
    await stream.aclose()  # the caller leaves while the effect is in flight

    await trio.sleep(50)
    assert not stopped.is_set()
    assert running.parts.engine.active_work == 1
    assert len(running.streams) == 0

    with trio.fail_after(80):
        await stopped.wait()
    assert effect_done == [100]
    assert 105 <= trio.current_time() <= 107
    ahead, record = [json.loads(line) for line in endpoints.audit_file.read_text().splitlines()]
    assert (ahead["event"], ahead["call"]) == ("dispatched", record["call"])
    # The caller left, but the effect finished: the record says what happened.
    assert (record["outcome"], record["reported"], record["effects"]) == ("ok", "outcome_unknown", 1)


async def test_sigterm_stops_the_service_cleanly(endpoints, nursery):
    stopped = trio.Event()

    async def service(task_status=trio.TASK_STATUS_IGNORED):
        await run_service(endpoints, keep_warm=True, build=plan_only, task_status=task_status)
        stopped.set()

    await nursery.start(service)
    os.kill(os.getpid(), signal.SIGTERM)
    with trio.fail_after(5):
        await stopped.wait()
    assert not endpoints.edge_socket.exists()


def test_module_entry_point_runs_and_exits_when_idle(endpoints):
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "ghostlight_trio",
            "service",
            "--instance",
            endpoints.instance,
            "--idle-timeout",
            "0.5",
        ],
        capture_output=True,
        timeout=30,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert b"listening" in result.stderr and b"shutting down" in result.stderr


@pytest.mark.parametrize("value", ["0", "-1", "nan", "soon"])
def test_an_idle_timeout_that_is_no_positive_number_is_refused(endpoints, value):
    """Not a service that exits at once (or never) on a typo: a usage error naming the value."""
    result = subprocess.run(
        [sys.executable, "-m", "ghostlight_trio", "service", "--instance", endpoints.instance,
         f"--idle-timeout={value}"],
        capture_output=True, text=True, timeout=30, check=False,
    )
    assert result.returncode == 2
    assert f"{value!r} is not a positive number of seconds" in result.stderr
    assert not endpoints.edge_socket.exists()


async def test_the_edge_socket_appears_only_once_the_browser_socket_listens(endpoints, nursery):
    """Whoever waits for the edge socket (a launcher, a doctor, a test) finds the whole service
    listening: the browser shore binds first, and nothing changes the runtime dir afterwards
    (a mode set on it once the edge socket appears is still there once the service runs)."""
    seen: list[bool] = []
    appeared = trio.Event()
    opened_mode = 0o711

    async def watch() -> None:
        while not endpoints.edge_socket.exists():
            await trio.lowlevel.checkpoint()
        seen.append(endpoints.browser_socket.exists())
        endpoints.runtime_dir.chmod(opened_mode)
        appeared.set()

    nursery.start_soon(watch)
    await nursery.start(partial(run_service, endpoints, keep_warm=True, handle_signals=False))
    with trio.fail_after(5):
        await appeared.wait()
    for _ in range(10):  # whatever the service still had scheduled has run
        await trio.lowlevel.checkpoint()
    try:
        assert seen == [True]
        assert stat.S_IMODE(endpoints.runtime_dir.stat().st_mode) == opened_mode
    finally:
        endpoints.runtime_dir.chmod(0o700)
        nursery.cancel_scope.cancel()


async def test_a_second_service_on_the_same_data_with_other_sockets_fails_fast_and_says_where(
    endpoints, nursery, monkeypatch, tmp_path
):
    """A shell and a client that see different runtime directories would each find no service
    beside their own sockets. The data lock still stops a second engine on the same audit trail
    and secret, and both it and `ghostlight status` say where the running one's sockets are."""
    from ghostlight_trio.cli.status import fetch
    from ghostlight_trio.transport.endpoints import Endpoints

    await start_service(nursery, endpoints)
    other_runtime = tmp_path / "other-run"
    other_runtime.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(other_runtime))
    elsewhere = Endpoints.for_instance()
    assert elsewhere.data_dir == endpoints.data_dir and elsewhere.runtime_dir != endpoints.runtime_dir
    with pytest.raises(ServiceAlreadyRunning) as caught:
        await run_service(elsewhere, keep_warm=True, build=plan_only, handle_signals=False)
    assert f"with its sockets under {endpoints.runtime_dir}" in str(caught.value)
    assert not elsewhere.edge_socket.exists()
    report, why = await fetch(elsewhere)
    assert report is None
    assert f"runs (pid {os.getpid()}) with its sockets under {endpoints.runtime_dir}" in str(why)
    nursery.cancel_scope.cancel()
