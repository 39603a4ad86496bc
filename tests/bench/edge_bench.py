"""``edge``: connector cold start and ``tools/list`` latency, beside the peers' cold start.

Cold start = spawn the server process → its ``initialize`` answer received (2025-11-25), with
the Ghostlight service already warm; every run is a fresh process, closed before the next.
Contenders run round-robin (one run each per round) so background load hits them alike. The
peers launch their browser lazily, so their cold start holds no browser either.

The connector answers its first request before it loads Trio and its runtime (see
``ghostlight_mcp_connector.prelude``), so the rows "to first tools/list" are printed too: spawn
→ handshake → the first ``tools/list`` answered, for Ghostlight and @playwright/mcp alike; and
"to first tools/call": spawn → handshake → one ``update_plan`` answered (the first Start,
Started and Outcome through the bridge codec, with a browser-independent tool).

Rows:
* ``ghostlight-mcp-connector`` as this environment runs it (it exports
  PYTHONDONTWRITEBYTECODE=1, so the editable checkout's modules compile on every start);
* the same with a bytecode cache (PYTHONPYCACHEPREFIX under the bench's temp dir), which is
  what an installed wheel gets;
* the same answering 2026-07-28 ``server/discover`` instead of ``initialize``;
* interpreter floors (``python -c pass`` / ``node -e 0``, spawn → exit) for context.

``tools/list`` is timed twice for Ghostlight: with the managed headless browser's extension
connected (the full catalog; the goal applies to this row) and with no browser (the service then
offers only the browser-independent tools), beside @playwright/mcp's default 25 tools.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import trio

from ghostlight_trio.cli.mcp_client import REVISION_2025_11_25, REVISION_2026_07_28

from . import peers
from .harness import isolated_instance, print_table, running_service, summarize

COLD_RUNS = 20
WARMUP_RUNS = 2
LIST_CALLS = 300
LIST_WARMUP = 20
FIRST_CALL = {
    "name": "update_plan",
    "arguments": {"domains": ["example.com"], "approach": ["read the page"]},
}
COLD_GOAL_MS = 250.0
LIST_GOAL_MS = 2.0


class ColdStart:
    """One server to start again and again; ``samples`` are its spawn → first answer times."""

    def __init__(
        self, name: str, argv: list[str], env: dict[str, str], era: str | None, log: Path,
        *, until_tools: bool = False, until_call: bool = False,
    ) -> None:
        self.name, self.argv, self.env, self.era, self.log = name, argv, env, era, log
        self.until_tools = until_tools
        """Time spawn -> the first tools/list answered (after the handshake) instead."""
        self.until_call = until_call
        """Time spawn -> the first tools/call answered (after the handshake) instead."""
        self.samples: list[float] = []

    async def once(self) -> float:
        started = time.perf_counter()
        if self.era is None:  # an interpreter floor: spawn -> exit
            await trio.run_process(self.argv, env=self.env, stdout=subprocess.DEVNULL)
            return time.perf_counter() - started
        with self.log.open("ab") as stderr:
            session = await peers.open_session(self.argv, env=self.env, stderr=stderr, era=self.era)
            try:
                if self.until_tools:
                    await session.client.request("tools/list")
                    return time.perf_counter() - started
                if self.until_call:
                    await session.client.request("tools/call", FIRST_CALL)
                    return time.perf_counter() - started
            finally:
                await session.aclose()
        return session.ready_s


async def cold_starts(contenders: list[ColdStart], runs: int = COLD_RUNS) -> None:
    """``runs`` fresh processes of each contender, round-robin, after ``WARMUP_RUNS`` each."""
    for contender in contenders:
        for _ in range(WARMUP_RUNS):
            await contender.once()
    for _ in range(runs):
        for contender in contenders:
            contender.samples.append(await contender.once())
            await trio.sleep(0.05)  # let the closed process go before the next spawn


async def _tools_list(argv: list[str], env: dict[str, str], log: Path) -> tuple[list[float], int, int]:
    samples: list[float] = []
    with log.open("ab") as stderr:
        session = await peers.open_session(argv, env=env, stderr=stderr)
        try:
            tools: list[dict[str, object]] = []
            for _ in range(LIST_WARMUP):
                tools = await session.client.list_tools()
            size = 0
            for _ in range(LIST_CALLS):
                started = time.perf_counter()
                result = await session.client.request("tools/list")
                samples.append(time.perf_counter() - started)
                size = len(str(result))
        finally:
            await session.aclose()
    return samples, len(tools), size


async def _with_browser(connector: list[str], env: dict[str, str], log: Path) -> tuple[list[float], int, int]:
    """tools/list once the managed headless browser's extension is connected (full catalog)."""
    async with peers.managed_browser():
        return await _tools_list(connector, env, log)


def run() -> None:
    peer_problem = peers.ensure_peers()
    pw_name = f"{peers.peer_label('@playwright/mcp')} (initialize)"
    cdm_name = f"{peers.peer_label('chrome-devtools-mcp')} (initialize)"
    ours = "ghostlight-mcp-connector"
    rows_list: list[tuple[str, dict[str, float] | str]] = []
    with tempfile.TemporaryDirectory(prefix="glt-bench-edge-") as tmp:
        logs = Path(tmp)
        with isolated_instance("bench-edge") as env, running_service(env), peers.instance_environ(env):
            connector = peers.connector_argv()
            cached_env = {**env, "PYTHONPYCACHEPREFIX": str(logs / "pycache")}
            cached_env.pop("PYTHONDONTWRITEBYTECODE", None)
            contenders = [
                ColdStart(f"{ours} (initialize)", connector, env, REVISION_2025_11_25, logs / "connector.log"),
                ColdStart(f"{ours} (initialize, bytecode cached)", connector, cached_env, REVISION_2025_11_25,
                           logs / "connector.log"),
                ColdStart(f"{ours} (2026-07-28 server/discover)", connector, env, REVISION_2026_07_28,
                           logs / "connector.log"),
                ColdStart(f"{ours} (to first tools/list, bytecode cached)", connector, cached_env,
                           REVISION_2025_11_25, logs / "connector.log", until_tools=True),
                ColdStart(f"{ours} (to first tools/call, bytecode cached)", connector, cached_env,
                           REVISION_2025_11_25, logs / "connector.log", until_call=True),
                ColdStart("floor: python -c pass (spawn -> exit)", [sys.executable, "-c", "pass"], env, None,
                           logs / "floor.log"),
                ColdStart("floor: python -c 'import trio' (spawn -> exit)",
                           [sys.executable, "-c", "import trio"], env, None, logs / "floor.log"),
            ]
            node = shutil.which("node")
            penv = peers.peer_env()
            pw_argv = peers.playwright_argv(logs / "pw-out")
            if peer_problem is None:
                contenders += [
                    ColdStart(pw_name, pw_argv, penv, REVISION_2025_11_25, logs / "pw.log"),
                    ColdStart(f"{peers.peer_label('@playwright/mcp')} (to first tools/list)", pw_argv,
                               penv, REVISION_2025_11_25, logs / "pw.log", until_tools=True),
                    ColdStart(cdm_name, peers.cdm_argv(), penv, REVISION_2025_11_25, logs / "cdm.log"),
                ]
            if node:
                contenders.append(ColdStart("floor: node -e 0 (spawn -> exit)", [node, "-e", "0"], dict(os.environ),
                                             None, logs / "floor.log"))
            trio.run(cold_starts, contenders)
            samples, count, size = trio.run(_tools_list, connector, env, logs / "connector.log")
            no_browser = (f"{ours}, no browser yet ({count} tools, {size} chars)", summarize(samples))
            samples, count, size = trio.run(_with_browser, connector, env, logs / "connector.log")
            rows_list.append((f"{ours}, browser connected ({count} tools, {size} chars)", summarize(samples)))
            rows_list.append(no_browser)
            if peer_problem is None:
                pw_samples, pw_count, pw_size = trio.run(_tools_list, pw_argv, penv, logs / "pw.log")
                rows_list.append(
                    (f"{peers.peer_label('@playwright/mcp')} ({pw_count} tools, {pw_size} chars)",
                     summarize(pw_samples))
                )
            else:
                rows_list.append(("@playwright/mcp", peer_problem))

    rows_cold: list[tuple[str, dict[str, float] | str]] = [(c.name, summarize(c.samples)) for c in contenders]
    if peer_problem is not None:
        rows_cold += [("@playwright/mcp (initialize)", peer_problem), ("chrome-devtools-mcp (initialize)", peer_problem)]
    print_table(
        f"edge: cold start, spawn -> first answer, service warm ({COLD_RUNS} fresh processes each, round-robin)",
        rows_cold,
        baseline=pw_name if peer_problem is None else None,
    )
    print_table(
        f"edge: tools/list round trip on one connection ({LIST_CALLS} calls after {LIST_WARMUP} warm-up)",
        rows_list,
        baseline=rows_list[-1][0] if peer_problem is None else None,
    )
    load = os.getloadavg()
    print(f"  note: load average at the end {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} CPUs;"
          " no browser in any cold start (the peers launch theirs lazily; ours was not launched yet)")
    ours_cold = rows_cold[0][1]
    ours_list = rows_list[0][1]
    assert isinstance(ours_cold, dict) and isinstance(ours_list, dict)
    cold_ok = "met" if ours_cold["p50_ms"] < COLD_GOAL_MS else "MISSED"
    list_ok = "met" if ours_list["p50_ms"] < LIST_GOAL_MS else "MISSED"
    print(
        f"  goal: connector cold start < {COLD_GOAL_MS:.0f} ms -> median {ours_cold['p50_ms']:.1f} ms,"
        f" p95 {ours_cold['p95_ms']:.1f} ms ({cold_ok})"
    )
    print(
        f"  goal: tools/list p50 < {LIST_GOAL_MS:.0f} ms (full catalog) -> p50 {ours_list['p50_ms']:.3f} ms ({list_ok})"
    )
