"""One update_plan round trip through the real service socket vs raw length-prefixed echoes.

Three echo peers on the same kind of socket (a Unix stream socket), timed in the same run and
interleaved with the update_plan rounds block by block:

* a blocking echo thread inside the benchmark process (the kernel floor without a process
  boundary: it shares the caller's process and caches, no event loop on the far side);
* the same blocking echo as a process of its own (the kernel floor across processes, as
  between an edge and the service). Run as ``python -m tests.bench.bridge_bench
  blocking-echo PATH``;
* a Trio echo process (the floor for any Trio service: a process woken by the kernel, one
  scheduler pass, ``receive_some`` / ``send_all``, no protocol work). Run as
  ``python -m tests.bench.bridge_bench echo PATH``;
* the same Trio echo answering each frame from a task of its own, spawned by the reader (the
  floor for the service's shape, which runs every call in a task of its own: a spawn, a second
  scheduler pass and the task's exit, still no protocol work). Run as
  ``python -m tests.bench.bridge_bench task-echo PATH``.

The service row is the whole edge -> service -> edge path: encode Start, the service decodes,
admits, validates, governs, audits and runs the call, and Started + Outcome come back.
"""

from __future__ import annotations

import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import trio

from ghostlight_trio.transport.bridge import Outcome, Start, Started
from ghostlight_trio.transport.handshake import open_bridge

from .harness import cpu_seconds, isolated_instance, print_table, service_process, summarize
from .peers import instance_environ

BLOCKS = 10
PER_BLOCK = 100
WARMUP = 50
"""Untimed rounds first on every peer, so no figure includes first-use costs (imports,
converter and code generation, allocator growth). Then blocks of each alternate, so machine
drift hits every figure alike."""
PLAN = {"domains": ["example.com"], "approach": ["read the page"]}
ECHO_BODY = 200
THREAD_ECHO = f"raw echo, blocking thread ({ECHO_BODY} B)"
PROCESS_ECHO = f"raw echo, blocking process ({ECHO_BODY} B)"
TRIO_ECHO = f"raw echo, Trio process ({ECHO_BODY} B)"
TASK_ECHO = f"raw echo, Trio task per frame ({ECHO_BODY} B)"
ECHOES = (THREAD_ECHO, PROCESS_ECHO, TRIO_ECHO, TASK_ECHO)
SERVICE = "update_plan via service"


def _blocking_echo(path: str, ready: threading.Event) -> None:
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    server.listen(1)
    ready.set()
    conn, _ = server.accept()
    with conn, server:
        while True:
            header = conn.recv(4, socket.MSG_WAITALL)
            if len(header) < 4:
                return
            (length,) = struct.unpack(">I", header)
            body = conn.recv(length, socket.MSG_WAITALL)
            conn.sendall(header + body)


async def _trio_echo(path: str, task_per_frame: bool) -> None:
    """The Trio echo peer: whole frames back, as they complete (from the reader itself, or
    from a task spawned for each frame)."""
    sock = trio.socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    await sock.bind(path)
    sock.listen(1)
    stream = await trio.SocketListener(sock).accept()
    buffer = b""
    async with trio.open_nursery() as frames:
        while True:
            data = await stream.receive_some(65536)
            if not data:
                frames.cancel_scope.cancel()
                return
            buffer += data
            while len(buffer) >= 4:
                (length,) = struct.unpack(">I", buffer[:4])
                if len(buffer) < 4 + length:
                    break
                frame, buffer = buffer[: 4 + length], buffer[4 + length :]
                if task_per_frame:  # the bench sends one frame at a time: no two sends overlap
                    frames.start_soon(stream.send_all, frame)
                else:
                    await stream.send_all(frame)


async def _echo_rounds(stream: trio.SocketStream, rounds: int, samples: list[float] | None) -> None:
    frame = struct.pack(">I", ECHO_BODY) + b"x" * ECHO_BODY
    for _ in range(rounds):
        start = time.perf_counter()
        await stream.send_all(frame)
        received = 0
        while received < len(frame):
            received += len(await stream.receive_some(65536))
        if samples is not None:
            samples.append(time.perf_counter() - start)


async def _plan_rounds(stream, first: int, rounds: int, samples: list[float] | None) -> None:
    for sequence in range(first, first + rounds):
        start = time.perf_counter()
        await stream.send(Start(sequence=sequence, operation="update_plan", arguments=PLAN))
        started = await stream.receive()
        assert isinstance(started, Started), started
        outcome = await stream.receive()
        assert isinstance(outcome, Outcome) and outcome.kind == "ok", outcome
        if samples is not None:
            samples.append(time.perf_counter() - start)


async def _connect(path: str) -> trio.SocketStream:
    deadline = trio.current_time() + 10
    while True:
        try:
            return await trio.open_unix_socket(path)
        except OSError:  # the echo process is still starting
            if trio.current_time() > deadline:
                raise
            await trio.sleep(0.02)


async def _side_by_side(
    endpoints, echo_paths: dict[str, str], samples: dict[str, list[float]], processes: dict[str, int]
) -> dict[str, float]:
    """Runs the rounds; returns the CPU each far-side process used per timed round (in us)."""
    echoes = {name: await _connect(path) for name, path in echo_paths.items()}
    bridge, _hello = await open_bridge(endpoints)
    for echo in echoes.values():
        await _echo_rounds(echo, WARMUP, None)
    await _plan_rounds(bridge, 0, WARMUP, None)
    before = {name: cpu_seconds(pid) for name, pid in processes.items()}
    for block in range(BLOCKS):
        for name, echo in echoes.items():
            await _echo_rounds(echo, PER_BLOCK, samples[name])
        await _plan_rounds(bridge, WARMUP + block * PER_BLOCK, PER_BLOCK, samples[SERVICE])
    rounds = BLOCKS * PER_BLOCK
    cpu_us = {name: (cpu_seconds(pid) - before[name]) / rounds * 1e6 for name, pid in processes.items()}
    for stream in (bridge, *echoes.values()):
        await stream.aclose()
    return cpu_us


def run() -> None:
    with (
        isolated_instance() as env,
        service_process(env) as (endpoints, service),
        instance_environ(env),
        tempfile.TemporaryDirectory() as tmp,
    ):
        samples: dict[str, list[float]] = {name: [] for name in (*ECHOES, SERVICE)}
        paths = {name: str(Path(tmp) / f"echo{index}.sock") for index, name in enumerate(ECHOES)}
        ready = threading.Event()
        threading.Thread(target=_blocking_echo, args=(paths[THREAD_ECHO], ready), daemon=True).start()
        ready.wait()
        echo_processes = {
            name: subprocess.Popen([sys.executable, "-m", "tests.bench.bridge_bench", mode, paths[name]])
            for mode, name in (
                ("blocking-echo", PROCESS_ECHO), ("echo", TRIO_ECHO), ("task-echo", TASK_ECHO)
            )
        }
        pids = {SERVICE: service.pid} | {name: process.pid for name, process in echo_processes.items()}
        try:
            cpu_us = trio.run(_side_by_side, endpoints, paths, samples, pids)
        finally:
            for process in echo_processes.values():
                process.terminate()
                process.wait()
    stats = {name: summarize(values) for name, values in samples.items()}
    print_table(
        "bridge: update_plan round trip (Start -> Started -> Outcome) vs raw echoes, same run",
        [(name, stats[name]) for name in samples],
        baseline=TRIO_ECHO,
    )
    print(
        "  CPU per round trip on the far side (process CPU time over the timed rounds): "
        + "; ".join(f"{name} {cpu_us[name]:.0f} us" for name in samples if name in cpu_us)
    )
    p50 = stats[SERVICE]["p50_ms"]
    verdicts = [f"p50 {p50:.3f} ms: {'met' if p50 < 0.5 else 'MISSED'}"]
    for name, label in (
        (TRIO_ECHO, "the Trio echo process"),
        (PROCESS_ECHO, "the blocking echo process"),
        (THREAD_ECHO, "the blocking echo thread"),
    ):
        ratio = p50 / stats[name]["p50_ms"]
        verdicts.append(f"{ratio:.2f}x {label}: {'within 5x' if ratio <= 5 else 'above 5x'}")
    print("  goal: p50 < 0.5 ms and within 5x of the raw echo -> " + "; ".join(verdicts))
    floor = stats[TASK_ECHO]["p50_ms"]
    print(
        f"  for scale: a Trio echo with a task per frame (the service's shape, no protocol work) is"
        f" {floor / stats[PROCESS_ECHO]['p50_ms']:.2f}x the blocking echo process;"
        f" the service is {p50 / floor:.2f}x that floor"
    )

if __name__ == "__main__" and sys.argv[1:2] in (["echo"], ["task-echo"]):
    trio.run(_trio_echo, sys.argv[2], sys.argv[1] == "task-echo")
elif __name__ == "__main__" and sys.argv[1:2] == ["blocking-echo"]:
    _blocking_echo(sys.argv[2], threading.Event())
