"""``python -m tests.load [--seconds 60] [--clients 16] [--setup-only]``: load and soak against one
service and one managed headless Chromium, through real ``ghostlight-mcp-connector`` processes.

Half the connectors speak MCP 2025-11-25 (one workspace per connector: that revision's workspace
is the connector's own), half speak 2026-07-28 and drive two workspaces each with explicit
``workspaceId``s. Every workspace runs a realistic mix (context, navigate between loopback pages,
read_page, find, clicks, screenshots, service-local planning), with calls its client cancels and
calls that fail, until the time is up. Meanwhile connectors of both revisions come and go (some
leave cleanly, some are killed with a call in flight, a 2026-07-28 one takes up a workspace an
earlier one left), and one 2026-07-28 connector keeps minting workspaces, so its oldest are ended
to make room. The report: throughput, p50/p95/p99 per tool, the service's RSS and open file
descriptors over time, audit records against calls made, and cross-routing checks (every tab id
in a result belongs to the caller's workspace), then one goal line per check; the exit status is
1 when a goal is not met. ``--setup-only`` stops once every workspace is set up (all at once, as
the run begins) and reports that goal alone, with how busy the machine and the browser's main
thread were meanwhile.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import subprocess
import sys
from collections import Counter, defaultdict
from typing import Any

import trio

from tests.faults.stack import Instance, instance

from . import soak

REVISION_2025_11_25 = "2025-11-25"
REVISION_2026_07_28 = "2026-07-28"
PLAN = {"domains": ["127.0.0.1"], "approach": ["read the page", "click the button"]}
SERVICE_LOCAL = {"update_plan"}
SETUP_CREATE = "tabs_create_mcp (setup)"
"""How the tabs made while every workspace is set up at once are timed."""
SETUP_CREATE_GOAL_S = 1.0
MIX = [
    ("tabs_context_mcp", 15),
    ("navigate", 10),
    ("read_page", 20),
    ("find", 15),
    ("click", 15),
    ("screenshot", 10),
    ("update_plan", 15),
    ("cancel", 4),
    ("fail", 4),
]
UNKNOWN_WORKSPACE = "Unknown or expired workspaceId"
"""How the service refuses a call naming a workspace it does not know (nothing ran)."""
NO_SUCH_TAB = 987_654_321
"""A tab id no workspace owns."""
REFUSED_PAGE = "http://127.0.0.1:9/"
"""A loopback port nothing listens on: the browser's navigation fails."""
CHURNERS = 2
"""Tasks that keep connectors coming and going for the whole run, one after another each,
alternating the revisions."""


def _meta(name: str) -> dict[str, Any]:
    return {
        "io.modelcontextprotocol/protocolVersion": REVISION_2026_07_28,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": name, "version": "1"},
    }


class Client:
    """One connector process; requests may overlap (answers are matched by id)."""

    def __init__(self, process: trio.Process, era: str, name: str) -> None:
        self.process = process
        self.era = era
        self.meta = _meta(name)
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
        client = cls(process, era, name)
        nursery.start_soon(client._read)
        if era == REVISION_2025_11_25:
            await client.request("initialize", {
                "protocolVersion": REVISION_2025_11_25, "capabilities": {},
                "clientInfo": {"name": name, "version": "1"},
            })
            await client._send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        else:
            await client.request("server/discover", {})  # a 2026-07-28 client's first request
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

    async def begin(
        self, method: str, params: dict[str, Any]
    ) -> tuple[int, trio.MemoryReceiveChannel[dict[str, Any]]]:
        """Send one request; its id, and where its answer will arrive."""
        request_id = next(self._ids)
        payload = dict(params)
        if self.era == REVISION_2026_07_28:
            payload["_meta"] = self.meta
        send, receive = trio.open_memory_channel[dict[str, Any]](1)
        self._waiting[request_id] = send
        await self._send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": payload})
        return request_id, receive

    async def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        _, receive = await self.begin(method, params)
        with trio.fail_after(120):
            return await receive.receive()

    async def cancel(self, request_id: int) -> None:
        """The client gives the request up: no answer is expected any more."""
        self._waiting.pop(request_id, None)
        params: dict[str, Any] = {"requestId": request_id, "reason": "load: given up"}
        if self.era == REVISION_2026_07_28:
            params["_meta"] = self.meta
        await self._send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": params})

    async def aclose(self) -> None:
        assert self.process.stdin is not None
        with trio.move_on_after(10):
            await self.process.stdin.aclose()
            await self.process.wait()
        if self.process.returncode is None:
            await self.kill()

    async def kill(self) -> None:
        self.process.kill()
        with trio.move_on_after(10):
            await self.process.wait()


class Stats:
    def __init__(self) -> None:
        self.latency: dict[str, list[float]] = defaultdict(list)
        self.errors: dict[str, int] = defaultdict(int)
        self.calls = 0
        """Calls answered."""
        self.audited = 0
        """Of those, the ones the service ran (so each has an audit record that says what the
        caller was told)."""
        self.refused = 0
        """Of those, the ones refused before anything ran (no audit record)."""
        self.unanswered = 0
        """Calls sent whose answer was given up: cancelled, or the connector killed meanwhile
        (an audit record each if the service had started them, saying nothing was reported)."""
        self.cancelled: Counter[str] = Counter()
        self.rpc_errors = 0
        self.cross_routing: list[str] = []
        self.samples: list[soak.Sample] = []
        self.idle_local: list[float] = []
        self.connections: Counter[str] = Counter()
        self.minted = 0
        self.setup_failures = 0
        self.probe: list[float] = []
        """Service-local calls timed by a client process of its own (``probe.py``)."""
        self.setup: soak.Busy | None = None
        """Setting every workspace up at once (a tab made, a page loaded): how long it took, how
        busy the machine was, how long the browser's main thread ran (every tab operation and
        extension API call runs on it)."""

    def answered(self, label: str, elapsed: float, reply: dict[str, Any]) -> dict[str, Any] | None:
        """Count one answer; the result, or None for a JSON-RPC error."""
        self.calls += 1
        if "error" in reply:
            self.rpc_errors += 1
            self.errors[label] += 1
            # An outcome the caller must treat as unknown (or cancelled by the service) was
            # run; any other JSON-RPC error is a refusal before anything ran.
            data = reply["error"].get("data")
            ran = isinstance(data, dict) and data.get("outcome") in ("outcome_unknown", "cancelled")
            self.audited += ran
            self.refused += not ran
            return None
        result: dict[str, Any] = reply["result"]
        self.latency[label].append(elapsed)
        if result.get("isError"):
            self.errors[label] += 1
        if result.get("isError") and UNKNOWN_WORKSPACE in _text(result):
            self.refused += 1
        else:
            self.audited += 1
        return result


def _text(result: dict[str, Any]) -> str:
    return " ".join(
        block.get("text", "") for block in result.get("content") or [] if isinstance(block, dict)
    )


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
        self.tab = 0
        self.disposable = False
        """Its workspace ends with its connection: it may name a tab it does not own (a
        denial, which counts toward pausing the workspace: a few of them would hold a
        long-lived workspace's calls for the rest of the run)."""

    def _params(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        return {"name": tool, "arguments": {**arguments, **self.workspace}}

    async def call(self, tool: str, arguments: dict[str, Any], label: str | None = None) -> Any:
        started = trio.current_time()
        reply = await self.client.request("tools/call", self._params(tool, arguments))
        label = label or tool
        result = self.stats.answered(label, trio.current_time() - started, reply)
        if result is not None:
            self._check_routing(label, result)
        return result

    async def call_and_cancel(self, tool: str, arguments: dict[str, Any], label: str,
                              after: float) -> None:
        """Start a call the client gives up ``after`` seconds later, unless its answer came."""
        started = trio.current_time()
        request_id, receive = await self.client.begin("tools/call", self._params(tool, arguments))
        await trio.sleep(after)
        try:
            reply = receive.receive_nowait()
        except trio.WouldBlock:
            await self.client.cancel(request_id)
            self.stats.unanswered += 1
            self.stats.cancelled[label] += 1
            return
        result = self.stats.answered(label, trio.current_time() - started, reply)
        if result is not None:
            self._check_routing(label, result)

    async def leave_mid_call(self) -> None:
        """The connector is killed while one of its calls runs (nothing answers it)."""
        await self.client.begin("tools/call", self._params("wait_for", {
            "tabId": self.tab, "selector": "#never-there", "timeout_ms": 20_000,
        }))
        await trio.sleep(self.random.uniform(0.2, 1.0))
        self.stats.unanswered += 1
        await self.client.kill()

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

    async def setup(self, label: str = "tabs_create_mcp") -> None:
        """A fresh tab: in the connector's own workspace (2025-11-25), in a workspace minted for
        it (2026-07-28), then a page in it. ``label``: what the tab's creation is timed as."""
        self.workspace = {}
        created = await self.call("tabs_create_mcp", {}, label)
        if not created or created.get("isError"):
            raise RuntimeError(f"{self.name}: could not create a tab: {created}")
        structured = created["structuredContent"]
        if self.client.era == REVISION_2026_07_28:
            self.workspace = {"workspaceId": structured["workspaceId"]}
        self.tabs = {tab["tabId"] for tab in structured.get("tabs", [])} | {structured["tabId"]}
        self.tab = structured["tabId"]
        await self.call("navigate", {"url": f"{self.web}/", "tabId": self.tab})

    async def take_up(self, handle: str) -> bool:
        """Carry on in a workspace another connection left (2026-07-28): False when it has
        expired meanwhile, or has no tab left."""
        self.workspace = {"workspaceId": handle}
        context = await self.call("tabs_context_mcp", {})
        tabs = [] if not context or context.get("isError") else (
            context.get("structuredContent") or {}).get("tabs") or []
        ids = [tab["tabId"] for tab in tabs if isinstance(tab, dict) and isinstance(tab.get("tabId"), int)]
        if not ids:
            return False
        self.tabs, self.tab = set(ids), ids[0]
        return True

    async def run(self, until: float) -> None:
        while trio.current_time() < until:
            await self.step()

    async def step(self) -> None:
        tools = [name for name, _ in MIX]
        weights = [weight for _, weight in MIX]
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
        elif choice == "cancel":
            await self.cancelled_call()
        elif choice == "fail":
            await self.failing_call()
        else:
            await self.call("tabs_context_mcp", {})

    async def cancelled_call(self) -> None:
        """A call the client gives up while it runs: a wait in the page, or a navigation to a
        page that is slow to answer (then the tab is taken back to a quick one)."""
        after = self.random.uniform(0.2, 1.5)
        if self.random.random() < 0.7:
            await self.call_and_cancel("wait_for", {
                "tabId": self.tab, "selector": "#never-there", "timeout_ms": 20_000,
            }, "cancel wait_for", after)
        else:
            await self.call_and_cancel("navigate", {"url": f"{self.web}/slow", "tabId": self.tab},
                                       "cancel navigate", after)
            await self.call("navigate", {"url": f"{self.web}/", "tabId": self.tab})

    async def failing_call(self) -> None:
        """A call that fails: arguments the tool refuses, a page that cannot be reached, a tab
        it does not own (``disposable`` only), or (refused before anything runs) a workspace or
        tool that does not exist."""
        kinds = ["arguments", "page", "unknown", *(["tab"] if self.disposable else [])]
        kind = self.random.choice(kinds)
        if kind == "tab":
            await self.call("read_page", {"tabId": NO_SUCH_TAB}, "fail foreign tab")
        elif kind == "arguments":
            await self.call("computer", {"action": "left_click", "tabId": self.tab},
                            "fail bad arguments")
        elif kind == "page":
            await self.call("navigate", {"url": REFUSED_PAGE, "tabId": self.tab},
                            "fail unreachable page")
            await self.call("navigate", {"url": f"{self.web}/", "tabId": self.tab})
        elif self.client.era == REVISION_2026_07_28:
            mine, self.workspace = self.workspace, {"workspaceId": "ws-not-a-live-handle"}
            try:
                await self.call("tabs_context_mcp", {}, "fail unknown workspace")
            finally:
                self.workspace = mine
        else:
            await self.call("no_such_tool", {}, "fail unknown tool")


async def churn(it: Instance, stats: Stats, until: float, number: int) -> None:
    """Connectors that come and go, alternating the revisions: each opens a tab (or a
    2026-07-28 one carries on in a workspace an earlier one left), makes a few calls, and
    leaves: cleanly mostly, killed with a call in flight now and then."""
    chooser = random.Random(1000 + number)
    left: list[str] = []
    for cycle in itertools.count():
        if trio.current_time() >= until:
            return
        era = REVISION_2025_11_25 if (number + cycle) % 2 == 0 else REVISION_2026_07_28
        async with trio.open_nursery() as readers:
            client = await Client.spawn(it.env, era, readers, f"churn-{number}")
            stats.connections[era] += 1
            worker = Workspace(client, f"churn{number}/{cycle}/{era}", it.pages.url, stats,
                               seed=1000 * number + cycle)
            worker.disposable = era == REVISION_2025_11_25  # released as the connection leaves
            try:
                taken = era == REVISION_2026_07_28 and left and chooser.random() < 0.5
                if not (taken and await worker.take_up(left.pop(chooser.randrange(len(left))))):
                    await worker.setup()
                for _ in range(chooser.randint(2, 6)):
                    await worker.step()
            except RuntimeError:
                stats.setup_failures += 1
            if era == REVISION_2026_07_28 and worker.workspace:
                left[:] = [*left, worker.workspace["workspaceId"]][-4:]
            if chooser.random() < 0.25 and worker.tab:
                stats.connections["killed mid-call"] += 1
                await worker.leave_mid_call()
            else:
                await client.aclose()
            readers.cancel_scope.cancel()


async def mint(client: Client, stats: Stats, web: str, until: float) -> None:
    """One 2026-07-28 connector that keeps minting workspaces, a tab and a few calls each: past
    its share the service ends its least recently used one to make room."""
    for number in itertools.count():
        if trio.current_time() >= until:
            return
        worker = Workspace(client, f"minter/{number}", web, stats, seed=5000 + number)
        try:
            await worker.setup()
            stats.minted += 1
            for _ in range(worker.random.randint(1, 3)):
                await worker.step()
        except RuntimeError:
            stats.setup_failures += 1


async def _probe(env: dict[str, str], seconds: float, stats: Stats) -> None:
    """A client of its own, timing service-local calls meanwhile: in a process and a session of
    its own, as an MCP client started from its own terminal or app is. Where the kernel schedules
    each session as one group (autogroups), a probe in the load's session would share one
    group's CPU with the load's own driver, which decodes what all the other connectors get."""
    done = await trio.run_process(
        [sys.executable, "-m", "tests.load.probe", str(seconds)],
        env={**env, "GHOSTLIGHT_LOG": "WARNING"}, capture_stdout=True, check=False,
        start_new_session=True,
    )  # fmt: skip
    if done.returncode == 0:
        told = json.loads(done.stdout)
        stats.probe = told["seconds"]
        stats.calls += told["calls"]
        stats.audited += told["calls"]  # each was run, and is in the audit trail


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


async def run_load(seconds: float, clients: int, setup_only: bool = False) -> int:
    with instance() as it:
        try:
            return await _run(it, seconds, clients, setup_only)
        finally:
            await it.aclose()


async def _run(it: Instance, seconds: float, clients: int, setup_only: bool = False) -> int:
    await it.start_service()
    browser = await it.start_browser()
    browser_pid = browser.browser_pid or browser.pid
    service_pid = (await it.status()).pid
    audit_before = {record["call"] for record in soak.audit_calls(it.endpoints.audit_file)}
    stats = Stats()
    async with trio.open_nursery() as readers:  # one client alone first, then it leaves
        probe = await Client.spawn(it.env, REVISION_2025_11_25, readers, "load-idle-probe")
        idle = Workspace(probe, "idle-probe", it.pages.url, stats, seed=0)
        for _ in range(40):
            await idle.call("update_plan", PLAN, "update_plan (idle)")
        stats.idle_local = stats.latency.pop("update_plan (idle)")
        await probe.aclose()
        readers.cancel_scope.cancel()
    await trio.sleep(1)
    fds_before = soak.open_fds(service_pid)  # the audit file is open by now
    workspaces: list[Workspace] = []
    async with trio.open_nursery() as readers:
        spawned: list[Client] = []
        for number in range(clients):
            era = REVISION_2025_11_25 if number % 2 == 0 else REVISION_2026_07_28
            spawned.append(await Client.spawn(it.env, era, readers, f"load-{number}"))
        minter = await Client.spawn(it.env, REVISION_2026_07_28, readers, "load-minter")
        for number, client in enumerate(spawned):
            count = 2 if client.era == REVISION_2026_07_28 else 1
            for index in range(count):
                workspaces.append(
                    Workspace(client, f"c{number}/{client.era}/w{index}", it.pages.url, stats,
                              seed=number * 10 + index)
                )
        print(f"setting up {len(workspaces)} workspaces on {clients} connectors ...", flush=True)
        before = soak.CpuReading.now(browser_pid)
        async with trio.open_nursery() as setup:
            for workspace in workspaces:
                setup.start_soon(workspace.setup, SETUP_CREATE)
        stats.setup = setup = before.until(soak.CpuReading.now(browser_pid))
        if setup_only:
            await _leave([*spawned, minter], readers)
            print()
            print(_setup_line(setup, len(workspaces)))
            line, met = _create_goal(stats, len(workspaces))
            print(f"  {line}")
            return 0 if met else 1
        calls_at_start = stats.calls
        began = trio.current_time()
        until = began + seconds
        print(f"running {seconds:g}s: {clients} connectors, {CHURNERS} coming and going,"
              " one minting workspaces ...", flush=True)

        async with trio.open_nursery() as work:
            work.cancel_scope.deadline = until + 150  # a hang bound, never reached in a good run
            sampler_scope = trio.CancelScope()

            async def sampler() -> None:
                with sampler_scope:
                    await soak.sample_until_cancelled(
                        service_pid, began, soak.sample_interval(seconds), stats.samples
                    )

            work.start_soon(sampler)
            work.start_soon(_probe, it.env, seconds, stats)
            async with trio.open_nursery() as runners:
                for workspace in workspaces:
                    runners.start_soon(workspace.run, until)
                for number in range(CHURNERS):
                    runners.start_soon(churn, it, stats, until, number)
                runners.start_soon(mint, minter, stats, it.pages.url, until)
            sampler_scope.cancel()
        elapsed = trio.current_time() - began
        stats.samples.append(soak.sample(service_pid, elapsed))
        measured_calls = stats.calls - calls_at_start
        await _leave([*spawned, minter], readers)
    with trio.move_on_after(30):  # calls given up settle at the service
        while True:
            if not (await it.status()).active_work:
                break
            await trio.sleep(0.5)
    await trio.sleep(1)
    fds_after = soak.open_fds(service_pid)
    records = [r for r in soak.audit_calls(it.endpoints.audit_file) if r["call"] not in audit_before]
    status = await it.status()
    return _report(stats, seconds, elapsed, measured_calls, records, clients, len(workspaces),
                   status, (fds_before, fds_after))


def _report(stats: Stats, seconds: float, elapsed: float, measured: int,
            records: list[dict[str, Any]], clients: int, workspaces: int, status: Any,
            fds_idle: tuple[int, int]) -> int:
    print()
    print(f"load: {clients} connectors ({clients - clients // 2} x {REVISION_2025_11_25}, {clients // 2} x"
          f" {REVISION_2026_07_28}), {workspaces} workspaces, one service, one headless Chromium")
    print(f"coming and going: {stats.connections[REVISION_2025_11_25]} x {REVISION_2025_11_25} and"
          f" {stats.connections[REVISION_2026_07_28]} x {REVISION_2026_07_28} connections"
          f" ({stats.connections['killed mid-call']} killed mid-call); {stats.minted} workspaces"
          f" minted on one connection; setups that failed {stats.setup_failures}")
    print(f"measured window {elapsed:.1f}s: {measured} calls answered, {measured / elapsed:.1f}"
          f" calls/s; JSON-RPC errors {stats.rpc_errors}; cancelled by the client"
          f" {sum(stats.cancelled.values())} ({', '.join(f'{k} {v}' for k, v in sorted(stats.cancelled.items()))})")
    print()
    print(f"{'tool':<24}{'calls':>7}{'errors':>8}{'p50 ms':>9}{'p95 ms':>9}{'p99 ms':>9}")
    for label in sorted(stats.latency):
        values = stats.latency[label]
        print(f"{label:<24}{len(values):>7}{stats.errors[label]:>8}"
              f"{_percentile(values, .5) * 1000:>9.1f}{_percentile(values, .95) * 1000:>9.1f}"
              f"{_percentile(values, .99) * 1000:>9.1f}")
    print()
    samples = stats.samples
    shown = samples[:: max(1, len(samples) // 12)] + samples[-1:]
    print("service RSS MiB / open fds over time: " + ", ".join(
        f"{s.at:.0f}s={s.rss_kib / 1024:.1f}/{s.fds}" for s in shown))
    reported = sum(record.get("reported") is not None for record in records)
    ids = Counter(record["call"] for record in records)
    duplicated = sum(n - 1 for n in ids.values() if n > 1)
    outcomes = Counter(f"{r.get('outcome')}/{r.get('reported')}" for r in records)
    print(f"audit records {len(records)} ({reported} saying what the caller was told) for"
          f" {stats.audited} answered calls the service ran, {stats.refused} refused before"
          f" running, {stats.unanswered} given up; duplicated ids {duplicated}")
    print("audit outcome/reported: " + ", ".join(f"{k} {v}" for k, v in outcomes.most_common()))
    print(f"service reports active work {status.active_work}, workspaces {status.workspaces}")
    if stats.idle_local:
        print(f"service-local baseline before the load (one client, sequential): update_plan p50"
              f" {_percentile(stats.idle_local, .5) * 1000:.1f} ms, p99"
              f" {_percentile(stats.idle_local, .99) * 1000:.1f} ms")
    print(f"cross-routing findings: {len(stats.cross_routing)}")
    for finding in stats.cross_routing[:10]:
        print(f"  {finding}")

    warm = soak.warm_up(seconds)
    in_run = [s for s in samples if s.at <= seconds]
    rss = soak.growth(in_run, warm, lambda s: s.rss_kib)
    fds = soak.growth(in_run, warm, lambda s: s.fds)
    lines = [
        soak.flat_goal("service RSS", rss, lambda kib: f"{kib / 1024:.1f} MiB"),
        soak.flat_goal("service open fds", fds, lambda n: f"{n:.0f}"),
    ]
    settled = fds_idle[1] <= fds_idle[0]
    lines.append((soak.goal_line(
        "service open fds back where they were once every connector left",
        f"{fds_idle[0]} before the load, {fds_idle[1]} after", settled), settled))
    audit_ok = (duplicated == 0 and reported >= stats.audited
                and len(records) <= stats.audited + stats.unanswered)
    lines.append((soak.goal_line(
        "no lost or duplicated audit records",
        f"{len(records)} records for {stats.audited} calls run and answered + up to"
        f" {stats.unanswered} given up, {duplicated} duplicated", audit_ok), audit_ok))
    routed = not stats.cross_routing
    lines.append((soak.goal_line(
        "zero cross-routing", f"{len(stats.cross_routing)} findings", routed), routed))
    local = [v for label in SERVICE_LOCAL for v in stats.latency.get(label, [])]
    served = [r["duration_ms"] / 1000 for r in records if r.get("tool") in SERVICE_LOCAL
              and isinstance(r.get("duration_ms"), int | float)]
    for who, values in (("timed in the load's own client process", local),
                        ("inside the service (audit durations)", served)):
        if values:
            print(f"service-local calls {who}: p50 {_percentile(values, .5) * 1000:.1f} ms,"
                  f" p99 {_percentile(values, .99) * 1000:.1f} ms over {len(values)}")
    probe = stats.probe
    p50 = _percentile(probe, .5) if probe else 0.0
    p99 = _percentile(probe, .99) if probe else 0.0
    local_ok = bool(probe) and p99 <= 5 * p50
    lines.append((soak.goal_line(
        "service-local p99 <= 5x p50 (a client process of its own)",
        f"p50 {p50 * 1000:.1f} ms, p99 {p99 * 1000:.1f} ms ({p99 / p50 if p50 else 0:.1f}x)"
        f" over {len(probe)} calls", local_ok), local_ok))
    lines.append(_create_goal(stats, workspaces))
    if stats.setup is not None:
        print(_setup_line(stats.setup, workspaces))
    print()
    print(f"goals (baseline after a {warm:.0f}s warm-up, medians of {soak.FEW} samples each end):")
    for line, _ in lines:
        print(f"  {line}")
    return 0 if all(ok for _, ok in lines) else 1


def _create_goal(stats: Stats, workspaces: int) -> tuple[str, bool]:
    created = stats.latency.get(SETUP_CREATE, [])
    create_p50 = _percentile(created, .5) if created else float("inf")
    create_ok = bool(created) and create_p50 < SETUP_CREATE_GOAL_S
    return soak.goal_line(
        f"tabs_create_mcp p50 < {SETUP_CREATE_GOAL_S:g} s while {workspaces} workspaces are set up at once",
        f"p50 {create_p50 * 1000:.0f} ms, slowest {max(created, default=0.0) * 1000:.0f} ms"
        f" over {len(created)} workspaces", create_ok), create_ok


def _setup_line(busy: soak.Busy, workspaces: int) -> str:
    """How busy the machine and the browser's main thread were while every workspace was set
    up: a machine near 100% busy makes tabs no faster however they are asked for."""
    return (f"setting up {workspaces} workspaces at once (a tab made, then a page loaded, in each)"
            f" took {busy.seconds:.2f}s; the machine's {os.cpu_count()} CPUs were"
            f" {busy.machine_percent:.0f}% busy, the browser's main thread ran"
            f" {busy.main_thread_seconds:.2f}s of it ({busy.main_thread_percent:.0f}%)")


async def _leave(clients: list[Client], readers: trio.Nursery) -> None:
    """Every connector leaves cleanly, then their readers stop."""
    for client in clients:
        await client.aclose()
    readers.cancel_scope.cancel()


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.load")
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--setup-only", action="store_true",
                        help="only set every workspace up at once, then report the tab-making goal")
    args = parser.parse_args()
    return trio.run(run_load, args.seconds, args.clients, args.setup_only)


if __name__ == "__main__":
    sys.exit(main())
