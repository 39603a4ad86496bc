"""One update_plan round trip through the real service socket vs a raw length-prefixed echo."""

from __future__ import annotations

import os
import socket
import struct
import tempfile
import threading
import time
from pathlib import Path

import trio

from ghostlight_trio.transport.bridge import Outcome, Start, Started
from ghostlight_trio.transport.handshake import open_bridge

from .harness import isolated_instance, print_table, running_service, summarize

BLOCKS = 10
PER_BLOCK = 100
WARMUP = 50
"""Untimed rounds first on both sides, so neither figure includes first-use costs (imports,
converter and code generation, allocator growth). Then blocks of echo and update_plan rounds
alternate, so machine drift hits both figures alike."""
PLAN = {"domains": ["example.com"], "approach": ["read the page"]}
ECHO_BODY = 200


def _echo_server(path: str, ready: threading.Event) -> None:
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


async def _side_by_side(endpoints, plan: list[float], echo: list[float]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "echo.sock")
        ready = threading.Event()
        thread = threading.Thread(target=_echo_server, args=(path, ready), daemon=True)
        thread.start()
        ready.wait()
        echo_stream = await trio.open_unix_socket(path)
        bridge, _hello = await open_bridge(endpoints)
        await _echo_rounds(echo_stream, WARMUP, None)
        await _plan_rounds(bridge, 0, WARMUP, None)
        for block in range(BLOCKS):
            await _echo_rounds(echo_stream, PER_BLOCK, echo)
            await _plan_rounds(bridge, WARMUP + block * PER_BLOCK, PER_BLOCK, plan)
        await bridge.aclose()
        await echo_stream.aclose()


def run() -> None:
    with isolated_instance() as env, running_service(env) as endpoints:
        os.environ.update({k: env[k] for k in ("GHOSTLIGHT_INSTANCE", "GHOSTLIGHT_HOME", "XDG_RUNTIME_DIR")})
        plan: list[float] = []
        echo: list[float] = []
        trio.run(_side_by_side, endpoints, plan, echo)
        plan_stats, echo_stats = summarize(plan), summarize(echo)
        print_table(
            "bridge: update_plan round trip (Start -> Started -> Outcome) vs raw echo",
            [("raw length-prefixed echo (200 B)", echo_stats), ("update_plan via service", plan_stats)],
            baseline="raw length-prefixed echo (200 B)",
        )
        print(
            f"  goal: p50 < 0.5 ms and within 5x of the echo -> "
            f"p50 {plan_stats['p50_ms']:.3f} ms, ratio {plan_stats['p50_ms'] / echo_stats['p50_ms']:.2f}"
        )
