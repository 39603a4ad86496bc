"""``navigate``: load a loopback page and read its title from the tool result, end to end.

Every contender is driven over stdio by our own ``McpClient`` (MCP 2025-11-25) and drives the
same Chromium binary (/usr/bin/chromium, headless) to the same loopback page:

* Ghostlight: connector → service → native host → extension in a managed headless Chromium
  (isolated instance); ``navigate{url, tabId}`` on a tab from ``tabs_create_mcp``; the title
  is ``structuredContent.title``.
* @playwright/mcp: ``browser_navigate{url}``; title from the "- Page Title:" line.
* @playwright/mcp with ``--timeout-settle 0`` (its post-action wait removed): same tool.
* chrome-devtools-mcp: ``navigate_page{type: "url", url, pageId}``; title from the selected
  page's line under "## Pages".

Each run navigates to ``?run=N`` whose ``<title>`` names N, and the title read back must match,
so no answer can come from a stale page. All sessions are open at once and runs go round-robin,
so background load hits every contender alike. Warm-up navigations are excluded; the first
tool use (setup call such as ``tabs_create_mcp``/``list_pages`` + first navigation, where the
peers launch their browser) is reported on its own line.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import trio

from ghostlight_trio.cli.mcp_client import McpError

from . import peers
from .harness import isolated_instance, print_table, running_service, summarize
from .peers import BenchError

RUNS = 30
WARMUP = 3
GOAL = "our p50 <= fastest peer's p50"


class _Contender:
    def __init__(self, name: str, short: str) -> None:
        self.name = name
        self.short = short
        self.navigate: peers.Navigate | None = None
        self.samples: list[float] = []
        self.first_s: float | None = None
        self.problem: str | None = None

    async def timed(self, url: str, expected: str) -> float:
        assert self.navigate is not None
        started = time.perf_counter()
        title = await self.navigate(url)
        elapsed = time.perf_counter() - started
        if title != expected:
            raise BenchError(f"{self.name}: read title {title!r}, expected {expected!r}")
        return elapsed


async def _ghostlight(session: peers.Session) -> peers.Navigate:
    return peers.ghostlight_navigate(session.client, await peers.ghostlight_tab(session.client))


async def _playwright(session: peers.Session) -> peers.Navigate:
    return peers.playwright_navigate(session.client)


async def _cdm(session: peers.Session) -> peers.Navigate:
    return peers.cdm_navigate(session.client, await peers.cdm_page(session.client))


async def _bench(base_url: str, env: dict[str, str], logs: Path, peer_problem: str | None) -> list[_Contender]:
    run_number = 0

    def next_url() -> tuple[str, str]:
        nonlocal run_number
        run_number += 1
        return f"{base_url}?run={run_number}", peers.page_title(run_number)

    ours = _Contender("ghostlight navigate (connector->service->extension)", "ghostlight")
    pw = _Contender(f"{peers.peer_label('@playwright/mcp')} browser_navigate", "playwright")
    pw_fast = _Contender(f"{peers.peer_label('@playwright/mcp')} --timeout-settle 0", "playwright settle-0")
    cdm = _Contender(f"{peers.peer_label('chrome-devtools-mcp')} navigate_page", "chrome-devtools-mcp")
    contenders = [ours, pw, pw_fast, cdm]
    # Ghostlight: managed headless Chromium with the extension, connected through the host.
    async with peers.managed_browser(), peers.SessionPool() as pool:
        setups: list[tuple[_Contender, list[str], dict[str, str], Callable[[peers.Session], Awaitable[peers.Navigate]]]]
        setups = [(ours, peers.connector_argv(), env, _ghostlight)]
        if peer_problem is None:
            makers = (_playwright, _playwright, _cdm)
            for contender, (argv, penv), make in zip((pw, pw_fast, cdm), peers.peer_launches(logs), makers, strict=True):
                setups.append((contender, argv, penv, make))
        else:
            for contender in (pw, pw_fast, cdm):
                contender.problem = peer_problem
        for index, (contender, argv, cenv, make) in enumerate(setups):
            try:
                session = await pool.open(argv, cenv, logs / f"{index}.log")
                started = time.perf_counter()
                contender.navigate = await make(session)
                await contender.timed(*next_url())
                contender.first_s = time.perf_counter() - started
                for _ in range(WARMUP - 1):
                    await contender.timed(*next_url())
            except (BenchError, McpError, EOFError, OSError) as exc:
                contender.problem = f"{type(exc).__name__}: {exc}"
                contender.navigate = None
        for _ in range(RUNS):
            for contender in contenders:
                if contender.navigate is None:
                    continue
                try:
                    contender.samples.append(await contender.timed(*next_url()))
                except (BenchError, McpError, EOFError) as exc:
                    contender.problem = f"{type(exc).__name__}: {exc}"
                    contender.navigate = None
    return contenders


def run() -> None:
    peer_problem = peers.ensure_peers()
    with tempfile.TemporaryDirectory(prefix="glt-bench-nav-") as tmp, peers.loopback_page() as base_url:
        with isolated_instance("bench-nav") as env, running_service(env), peers.instance_environ(env):
            contenders = trio.run(_bench, base_url, env, Path(tmp), peer_problem)

    rows: list[tuple[str, dict[str, float] | str]] = []
    for contender in contenders:
        if contender.problem is not None and len(contender.samples) < RUNS:
            rows.append((contender.name, contender.problem))
        else:
            rows.append((contender.name, summarize(contender.samples)))
    ours_row = rows[0][1]
    peer_rows = [(name, stats) for name, stats in rows[1:] if isinstance(stats, dict)]
    fastest = min(peer_rows, key=lambda row: row[1]["p50_ms"]) if peer_rows else None
    print_table(
        f"navigate: loopback page + title read from the result, end to end over MCP stdio"
        f" ({RUNS} runs each, round-robin, after {WARMUP} warm-up)",
        rows,
        baseline=fastest[0] if fastest else None,
    )
    firsts = ", ".join(
        f"{c.short} {c.first_s * 1000:.0f} ms" for c in contenders if c.first_s is not None
    )
    print(f"  first use after initialize (setup call + first navigation; the peers launch their browser"
          f" here, ours was launched before): {firsts}")
    load = os.getloadavg()
    print(f"  note: same binary {peers.CHROMIUM} headless for all; load average {load[0]:.2f} on {os.cpu_count()} CPUs")
    if not isinstance(ours_row, dict):
        print(f"  goal: {GOAL} -> not measured ({ours_row})")
    elif fastest is None:
        print(f"  goal: {GOAL} -> no peer measured; ours p50 {ours_row['p50_ms']:.1f} ms")
    else:
        verdict = "met" if ours_row["p50_ms"] <= fastest[1]["p50_ms"] else "MISSED"
        print(
            f"  goal: {GOAL} -> ours {ours_row['p50_ms']:.1f} ms vs {fastest[0]} {fastest[1]['p50_ms']:.1f} ms"
            f" (x{ours_row['p50_ms'] / fastest[1]['p50_ms']:.2f}, {verdict})"
        )
