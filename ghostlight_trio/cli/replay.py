"""``ghostlight replay FILE``: run a script ``record_actions`` exported against the managed
browser, as an agent would: through the instance's own MCP connector, with the ``script`` tool,
so each step is checked, held, audited and refused on an ambiguous target exactly as it is for
an agent. Each step is printed with its outcome; the first failure ends the replay (exit 1).

A browser already connected to the instance is used as it is; otherwise the command starts the
service and a managed browser and stops them again at the end, as the demo does.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import trio

from ..browser import managed
from ..transport.endpoints import Endpoints
from . import json_output
from .background import ensure_service, service_reachable
from .browser_command import connected_report, launched_loader
from .control import query_status
from .demo import connect_connector
from .mcp_client import McpClient, McpError, result_text
from .replay_file import ReplayFileError, fill, parse_values, read_steps
from .screen import headless_here
from .started import Started

SCRIPT_STEPS = 20
"""The most steps one script call takes: a longer replay runs in parts, in order."""
SHOWN = 300


def run(args: argparse.Namespace, endpoints: Endpoints) -> int:
    try:
        steps = fill(read_steps(Path(args.file)), parse_values(args.value or ()))
    except ReplayFileError as problem:
        if args.json:
            json_output.error(str(problem))
        print(f"ghostlight replay: {problem}", file=sys.stderr)
        return 2
    return trio.run(_replay, endpoints, steps, args)


async def _replay(endpoints: Endpoints, steps: list[dict[str, Any]], args: argparse.Namespace) -> int:
    say = _Say(args.json)
    started = Started()
    try:
        await _browser(endpoints, started, args, say)
        client = await connect_connector(endpoints)
        async with client:
            tab = args.tab if args.tab is not None else await _new_tab(client)
            say.line(f"replaying {len(steps)} step(s) of {args.file} in tab {tab}")
            ok = await _run_steps(client, tab, steps, say)
    except (managed.ManagedBrowserError, RuntimeError, TimeoutError, McpError, EOFError) as exc:
        return say.failed(f"{exc}")
    finally:
        await started.stop(say=False)
    return say.done(ok, tab)


async def _browser(endpoints: Endpoints, started: Started, args: argparse.Namespace, say: _Say) -> None:
    """A browser connected to the instance: the one already there, else one started here."""
    if await service_reachable(endpoints) and (await query_status(endpoints)).browsers:
        return
    started.service = await ensure_service(endpoints)
    loader = launched_loader(endpoints, started, headless_here(args.headless), args.browser_path)
    say.line("launching a managed browser (stopped again at the end)")
    await connected_report(endpoints, loader, await loader.start())


async def _new_tab(client: McpClient) -> int:
    created = await client.call_tool("tabs_create_mcp", {})
    tab = (created.get("structuredContent") or {}).get("tabId")
    if created.get("isError") or not isinstance(tab, int):
        raise RuntimeError(f"no tab to replay in: {result_text(created)[:SHOWN]}")
    return tab


async def _run_steps(client: McpClient, tab: int, steps: list[dict[str, Any]], say: _Say) -> bool:
    """The steps in parts of at most ``SCRIPT_STEPS``, each part one script call; False at the
    first step that did not succeed (the script stops there itself)."""
    for at in range(0, len(steps), SCRIPT_STEPS):
        part = steps[at : at + SCRIPT_STEPS]
        ran = await client.call_tool("script", {"tabId": tab, "steps": part})
        results = (ran.get("structuredContent") or {}).get("results")
        if not isinstance(results, list):  # refused as a whole (held, denied, bad arguments)
            say.step(at + 1, len(steps), "script", "error", result_text(ran))
            return False
        for record in results:
            number = at + int(record.get("step", 0))
            say.step(number, len(steps), str(record.get("tool")), str(record.get("status")),
                     str(record.get("result", "")), record.get("structured"))  # fmt: skip
        if ran.get("isError") or any(r.get("status") != "ok" for r in results):
            return False
    return True


class _Say:
    """Prose on stdout, or (with ``--json``) one object at the end and prose nowhere."""

    def __init__(self, as_json: bool) -> None:
        self.as_json = as_json
        self.steps: list[dict[str, Any]] = []

    def line(self, text: str) -> None:
        if not self.as_json:
            print(text, flush=True)

    def step(self, number: int, total: int, tool: str, status: str, said: str,
             structured: Any = None) -> None:  # fmt: skip
        record: dict[str, Any] = {"step": number, "tool": tool, "status": status}
        if status != "ok":
            record["result"] = said
            candidates = structured.get("candidates") if isinstance(structured, dict) else None
            if candidates:
                record["candidates"] = candidates
        self.steps.append(record)
        if self.as_json:
            return
        print(f"[{number}/{total}] {tool}: {status}", flush=True)
        if status != "ok" and status != "not_run":
            for text in said[: SHOWN * 4].splitlines():
                print(f"      ! {text}")

    def done(self, ok: bool, tab: int) -> int:
        if self.as_json:
            body: dict[str, Any] = {"ok": ok, "tab": tab, "steps": self.steps}
            if not ok:
                failed = next((s for s in self.steps if s["status"] not in ("ok", "not_run")), None)
                body["error"] = f"step {failed['step']} {failed['status']}" if failed else "replay failed"
            json_output.emit(body)
        else:
            print("replay finished: every step succeeded" if ok else "replay stopped at the first failure")
        return 0 if ok else 1

    def failed(self, problem: str) -> int:
        if self.as_json:
            json_output.error(problem, steps=self.steps)
        print(f"ghostlight replay: {problem}", file=sys.stderr)
        return 1
