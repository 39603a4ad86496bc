"""``python -m tests.load [--seconds 60] [--clients 16]``: load and soak against one service and
one managed headless Chromium, through real ``ghostlight-mcp-connector`` processes.

Half the connectors speak MCP 2025-11-25 (one workspace per connector: that revision's workspace
is the connector's own), half speak 2026-07-28 and drive two workspaces each with explicit
``workspaceId``s. Every workspace runs a realistic mix (context, navigate between loopback pages,
read_page, find, clicks, screenshots, service-local planning) until the time is up. The report:
throughput, p50/p95/p99 per tool, service RSS over time, audit lines against calls made, and
cross-routing checks (every tab id in a result belongs to the caller's workspace).
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import subprocess
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import trio

from tests.faults.stack import Instance, instance

LEGACY = "2025-11-25"
MODERN = "2026-07-28"
META = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {},
}
PLAN = {"domains": ["127.0.0.1"], "approach": ["read the page", "click the button"]}
SERVICE_LOCAL = {"update_plan"}
MIX = [
    ("tabs_context_mcp", 15),
    ("navigate", 10),
    ("read_page", 20),
    ("find", 15),
    ("click", 15),
    ("screenshot", 10),
    ("update_plan", 15),
]


class Client:
    """One connector process; requests may overlap (answers are matched by id)."""

    def __init__(self, process: trio.Process, era: str) -> None:
        self.process = process
        self.era = era
        self._ids = itertools.count(1)
        self._waiting: dict[int, trio.MemorySendChannel[dict[str, Any]]] = {}
        self._lock = trio.Lock()
        self.stray_lines = 0

    @classmethod
    async def spawn(cls, env: dict[str, str], era: str, nursery: trio.Nursery, name: str) -> Client:
        process = await trio.lowlevel.open_process(
            [sys.executable, "-m", "ghostlight_mcp_connector"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            env={**env, "GHOSTLIGHT_LOG": "WARNING"},
        )
        client = cls(process, era)
        nursery.start_soon(client._read)
        if era == LEGACY:
            await client.request("initialize", {
                "protocolVersion": LEGACY, "capabilities": {},
                "clientInfo": {"name": name, "version": "1"},
            })
            await client._send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return client

    async def _send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        async with self._lock:
            await self.process.stdin.send_all(json.dumps(message).encode() + b"\n")

    async def _read(self) -> None:
        assert self.process.stdout is not None
        buffer = b""
        async for chunk in self.process.stdout:
            buffer += chunk
            while b"\n" in buffer:
                line, buffer = buffer.split(b"\n", 1)
                message = json.loads(line)
                channel = self._waiting.pop(message.get("id"), None)
                if channel is None:
                    self.stray_lines += "id" in message
                    continue
                channel.send_nowait(message)

    async def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        request_id = next(self._ids)
        payload = dict(params)
        if self.era == MODERN:
            payload["_meta"] = META
        send, receive = trio.open_memory_channel[dict[str, Any]](1)
        self._waiting[request_id] = send
        await self._send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": payload})
        with trio.fail_after(120):
            return await receive.receive()

    async def aclose(self) -> None:
        assert self.process.stdin is not None
        with trio.move_on_after(10):
            await self.process.stdin.aclose()
            await self.process.wait()
        if self.process.returncode is None:
            self.process.kill()


class Stats:
    def __init__(self) -> None:
        self.latency: dict[str, list[float]] = defaultdict(list)
        self.errors: dict[str, int] = defaultdict(int)
        self.calls = 0
        self.rpc_errors = 0
        self.cross_routing: list[str] = []
        self.rss: list[tuple[float, int]] = []
        self.idle_local: list[float] = []


class Workspace:
    """One workspace's worker: its own tab, its own calls."""

    def __init__(self, client: Client, name: str, web: str, stats: Stats, seed: int) -> None:
        self.client = client
        self.name = name
        self.web = web
        self.stats = stats
        self.random = random.Random(seed)
        self.workspace: dict[str, Any] = {}
        self.tabs: set[int] = set()

    async def call(self, tool: str, arguments: dict[str, Any], label: str | None = None) -> Any:
        started = trio.current_time()
        reply = await self.client.request(
            "tools/call", {"name": tool, "arguments": {**arguments, **self.workspace}}
        )
        elapsed = trio.current_time() - started
        self.stats.calls += 1
        label = label or tool
        if "error" in reply:
            self.stats.rpc_errors += 1
            self.stats.errors[label] += 1
            return None
        result = reply["result"]
        self.stats.latency[label].append(elapsed)
        if result.get("isError"):
            self.stats.errors[label] += 1
        self._check_routing(label, result)
        return result

    def _check_routing(self, label: str, result: dict[str, Any]) -> None:
        structured = result.get("structuredContent") or {}
        found = set()
        if isinstance(structured.get("tabId"), int):
            found.add(structured["tabId"])
        for tab in structured.get("tabs") or []:
            if isinstance(tab, dict) and isinstance(tab.get("tabId"), int):
                found.add(tab["tabId"])
        foreign = found - self.tabs
        if foreign and self.tabs:
            self.stats.cross_routing.append(f"{self.name} {label}: foreign tabs {sorted(foreign)}")

    async def setup(self) -> None:
        created = await self.call("tabs_create_mcp", {})
        if not created or created.get("isError"):
            raise RuntimeError(f"{self.name}: could not create a tab: {created}")
        structured = created["structuredContent"]
        if self.client.era == MODERN:
            self.workspace = {"workspaceId": structured["workspaceId"]}
        self.tabs = {tab["tabId"] for tab in structured.get("tabs", [])} | {structured["tabId"]}
        self.tab = structured["tabId"]
        await self.call("navigate", {"url": f"{self.web}/", "tabId": self.tab})

    async def run(self, until: float) -> None:
        tools = [name for name, _ in MIX]
        weights = [weight for _, weight in MIX]
        while trio.current_time() < until:
            choice = self.random.choices(tools, weights)[0]
            tab = self.tab
            if choice == "navigate":
                page = self.random.choice(["/", "/form"])
                await self.call("navigate", {"url": f"{self.web}{page}", "tabId": tab})
            elif choice == "read_page":
                await self.call("read_page", {"tabId": tab, "filter": "interactive"})
            elif choice == "find":
                await self.call("find", {"query": "the main button", "tabId": tab})
            elif choice == "click":
                await self.call("computer", {"action": "left_click", "coordinate": [60, 60],
                                             "tabId": tab}, "computer click")
            elif choice == "screenshot":
                await self.call("computer", {"action": "screenshot", "tabId": tab},
                                "computer screenshot")
            elif choice == "update_plan":
                await self.call("update_plan", PLAN)
            else:
                await self.call("tabs_context_mcp", {})


def _rss_kib(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


async def run_load(seconds: float, clients: int) -> int:
    with instance() as it:
        try:
            return await _run(it, seconds, clients)
        finally:
            await it.aclose()


async def _run(it: Instance, seconds: float, clients: int) -> int:
    await it.start_service()
    await it.start_browser()
    service_pid = (await it.status()).pid
    audit_before = len(it.audit())
    stats = Stats()
    workspaces: list[Workspace] = []
    async with trio.open_nursery() as readers:
        spawned: list[Client] = []
        for number in range(clients):
            era = LEGACY if number % 2 == 0 else MODERN
            spawned.append(await Client.spawn(it.env, era, readers, f"load-{number}"))
        for number, client in enumerate(spawned):
            count = 2 if client.era == MODERN else 1
            for index in range(count):
                workspaces.append(
                    Workspace(client, f"c{number}/{client.era}/w{index}", it.pages.url, stats,
                              seed=number * 10 + index)
                )
        idle = Workspace(spawned[0], "idle-probe", it.pages.url, Stats(), seed=0)
        for _ in range(40):
            await idle.call("update_plan", PLAN)
        stats.idle_local = idle.stats.latency["update_plan"]
        stats.calls += idle.stats.calls
        print(f"setting up {len(workspaces)} workspaces on {clients} connectors ...", flush=True)
        async with trio.open_nursery() as setup:
            for workspace in workspaces:
                setup.start_soon(workspace.setup)
        calls_at_start = stats.calls
        began = trio.current_time()
        until = began + seconds

        async def sample_rss() -> None:
            while True:
                stats.rss.append((trio.current_time() - began, _rss_kib(service_pid)))
                await trio.sleep(max(1.0, seconds / 12))

        async with trio.open_nursery() as work:
            work.cancel_scope.deadline = until + 150  # a hang bound, never reached in a good run
            sampler_scope = trio.CancelScope()

            async def sampler() -> None:
                with sampler_scope:
                    await sample_rss()

            work.start_soon(sampler)
            async with trio.open_nursery() as runners:
                for workspace in workspaces:
                    runners.start_soon(workspace.run, until)
            sampler_scope.cancel()
        elapsed = trio.current_time() - began
        stats.rss.append((elapsed, _rss_kib(service_pid)))
        measured_calls = stats.calls - calls_at_start
        for client in spawned:
            await client.aclose()
        readers.cancel_scope.cancel()
    await trio.sleep(1)
    audit_lines = len(it.audit()) - audit_before
    status = await it.status()
    return _report(stats, elapsed, measured_calls, audit_lines, clients, len(workspaces), status)


def _report(stats: Stats, elapsed: float, measured: int, audit_lines: int, clients: int,
            workspaces: int, status: Any) -> int:
    print()
    print(f"load: {clients} connectors ({clients - clients // 2} x {LEGACY}, {clients // 2} x"
          f" {MODERN}), {workspaces} workspaces, one service, one headless Chromium")
    print(f"measured window {elapsed:.1f}s: {measured} calls, {measured / elapsed:.1f} calls/s;"
          f" JSON-RPC errors {stats.rpc_errors}")
    print()
    print(f"{'tool':<22}{'calls':>7}{'errors':>8}{'p50 ms':>9}{'p95 ms':>9}{'p99 ms':>9}")
    for label in sorted(stats.latency):
        values = stats.latency[label]
        print(f"{label:<22}{len(values):>7}{stats.errors[label]:>8}"
              f"{_percentile(values, .5) * 1000:>9.1f}{_percentile(values, .95) * 1000:>9.1f}"
              f"{_percentile(values, .99) * 1000:>9.1f}")
    print()
    print("service RSS (MiB) over time: " + ", ".join(
        f"{t:.0f}s={kib / 1024:.1f}" for t, kib in stats.rss))
    print(f"audit lines written {audit_lines} vs calls made {stats.calls} (setup included);"
          f" service reports active work {status.active_work}, workspaces {status.workspaces}")
    if stats.idle_local:
        print(f"service-local baseline before the load (one client, sequential): update_plan p50"
              f" {_percentile(stats.idle_local, .5) * 1000:.1f} ms, p99"
              f" {_percentile(stats.idle_local, .99) * 1000:.1f} ms")
    print(f"cross-routing findings: {len(stats.cross_routing)}")
    for finding in stats.cross_routing[:10]:
        print(f"  {finding}")

    warm = [kib for t, kib in stats.rss if t >= elapsed * 0.25]
    growth = (warm[-1] - warm[0]) / warm[0] * 100 if warm and warm[0] else 0.0
    local = [v for label in SERVICE_LOCAL for v in stats.latency.get(label, [])]
    p50 = _percentile(local, .5) if local else 0.0
    p99 = _percentile(local, .99) if local else 0.0
    goals = [
        ("zero cross-routing", not stats.cross_routing, f"{len(stats.cross_routing)} findings"),
        ("no lost or duplicated audit records", audit_lines == stats.calls,
         f"{audit_lines} lines for {stats.calls} calls"),
        ("service RSS growth under 10% after warm-up", growth < 10, f"{growth:+.1f}%"),
        ("service-local p99 <= 5x p50", p99 <= 5 * p50,
         f"p50 {p50 * 1000:.1f} ms, p99 {p99 * 1000:.1f} ms ({p99 / p50 if p50 else 0:.1f}x)"),
    ]
    print()
    print("goals:")
    for name, ok, detail in goals:
        print(f"  [{'PASS' if ok else 'FAIL'}] {name}: {detail}")
    return 0 if all(ok for _, ok, _ in goals) else 1


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.load")
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--clients", type=int, default=16)
    args = parser.parse_args()
    return trio.run(run_load, args.seconds, args.clients)


if __name__ == "__main__":
    sys.exit(main())
