"""Governance + audit overhead on a service-local call (update_plan), in one run.

Three service processes, identical but for the chokepoint: no gate and no audit (the baseline),
the real gate all-open with the JSONL audit, and the real gate under a 50-grant policy with the
audit. Each runs as its own process, as the service does (``python -m tests.bench.governance_bench
VARIANT DIR``), and is driven over its real bridge socket; calls go round-robin (one to each
service in turn), so machine drift hits all three alike. A second table times the engine alone (admission to Outcome, no socket) to show the
absolute cost the chokepoint adds per call.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import trio

from ghostlight_trio.audit.log import RotatingAuditLog
from ghostlight_trio.catalog.registry import Catalog, load_specs
from ghostlight_trio.engine.engine import WorkEngine
from ghostlight_trio.governance.assembly import governance_parts
from ghostlight_trio.governance.sources import PolicyFiles
from ghostlight_trio.scheduler import Scheduler
from ghostlight_trio.service.app import ServiceParts
from ghostlight_trio.service.runner import run_service
from ghostlight_trio.tools.update_plan import PlanBook
from ghostlight_trio.transport.bridge import Outcome, RequestContext, Start, Started
from ghostlight_trio.transport.endpoints import Endpoints
from ghostlight_trio.transport.handshake import open_bridge
from ghostlight_trio.workspace import WorkspaceRegistry

from .harness import cpu_seconds, isolated_instance, print_table, service_process, summarize

CALLS = 3000
WARMUP = 100
ENGINE_CALLS = 3000
PLAN = {"domains": ["example.com"], "approach": ["read the page"]}
VARIANTS = ("no gate, no audit", "all-open + audit", "50-grant policy + audit")


def fifty_grants() -> dict[str, Any]:
    grants = [
        {
            "id": f"g{index}",
            "hosts": {"allow": [f"*.site{index}.example", f"site{index}.example"],
                      "deny": [f"admin.site{index}.example"]},
            "allowed": ["read", "action"] if index % 2 else ["read"],
        }
        for index in range(50)
    ]
    return {"schema": 3, "name": "bench", "version": "1", "grants": grants}


def _engine(variant: str, tmp: Path) -> tuple[WorkEngine, Catalog, WorkspaceRegistry, Scheduler]:
    handlers = {"update_plan": PlanBook().update_plan}
    catalog = Catalog(load_specs(), available=handlers.keys())
    workspaces, scheduler = WorkspaceRegistry(), Scheduler()
    kwargs: dict[str, Any] = {}
    if variant != VARIANTS[0]:
        user = None
        if variant == VARIANTS[2]:
            user = tmp / "policy.json"
            user.write_text(json.dumps(fifty_grants()))
        files = PolicyFiles(org=None, user=user, settings=None)
        kwargs = {
            "gate": governance_parts(files, None).gate,
            "audit": RotatingAuditLog(tmp / f"audit-{VARIANTS.index(variant)}.jsonl"),
        }
    engine = WorkEngine(
        catalog=catalog, handlers=handlers, workspaces=workspaces, scheduler=scheduler, **kwargs
    )
    return engine, catalog, workspaces, scheduler


async def _bridge_rounds(endpoints: list[Endpoints]) -> dict[str, list[float]]:
    samples: dict[str, list[float]] = {variant: [] for variant in VARIANTS}
    streams = {variant: (await open_bridge(ep))[0] for variant, ep in zip(VARIANTS, endpoints, strict=True)}
    for sequence in range(WARMUP + CALLS):
        for variant in VARIANTS:
            stream = streams[variant]
            start = time.perf_counter()
            await stream.send(Start(sequence=sequence, operation="update_plan", arguments=PLAN))
            assert isinstance(await stream.receive(), Started)
            outcome = await stream.receive()
            assert isinstance(outcome, Outcome) and outcome.kind == "ok", outcome
            if sequence >= WARMUP:
                samples[variant].append(time.perf_counter() - start)
    for stream in streams.values():
        await stream.aclose()
    return samples


def _serve_variant(variant: str, tmp: Path) -> None:
    """The service process for one variant (the instance comes from the environment)."""

    def build(ep: Endpoints) -> ServiceParts:
        engine, catalog, workspaces, scheduler = _engine(variant, tmp)
        return ServiceParts(catalog, workspaces, scheduler, engine, None)

    trio.run(lambda: run_service(Endpoints.for_instance(), keep_warm=True, build=build))


class _Sink:
    def __init__(self) -> None:
        self.done = trio.Event()

    def post(self, message: Any) -> None:
        if isinstance(message, Outcome):
            self.done.set()

    def post_progress(self, message: Any) -> None:
        pass


async def _engine_rounds(tmp: Path) -> dict[str, list[float]]:
    samples: dict[str, list[float]] = {variant: [] for variant in VARIANTS}
    async with trio.open_nursery() as nursery:
        sessions = {}
        for variant in VARIANTS:
            engine = _engine(variant, tmp)[0]
            sink = _Sink()
            sessions[variant] = (engine.open_session(nursery, sink), sink)
        for sequence in range(WARMUP + ENGINE_CALLS):
            for variant in VARIANTS:
                session, sink = sessions[variant]
                sink.done = trio.Event()
                start = time.perf_counter()
                session.start(Start(sequence, "update_plan", PLAN, None, RequestContext("bench")))
                await sink.done.wait()
                if sequence >= WARMUP:
                    samples[variant].append(time.perf_counter() - start)
        nursery.cancel_scope.cancel()
    return samples


def run() -> None:
    with tempfile.TemporaryDirectory(prefix="glt-gov-bench-") as raw, ExitStack() as stack:
        tmp = Path(raw)
        endpoints, pids = [], []
        for index, variant in enumerate(VARIANTS):
            env = stack.enter_context(isolated_instance(f"gov{index}"))
            argv = [sys.executable, "-m", "tests.bench.governance_bench", variant, str(tmp)]
            ep, process = stack.enter_context(service_process(env, argv))
            endpoints.append(ep)
            pids.append(process.pid)
        cpu_before = [cpu_seconds(pid) for pid in pids]
        bridge = trio.run(_bridge_rounds, endpoints)
        cpu_per_call = {
            variant: (cpu_seconds(pid) - before) / (WARMUP + CALLS)
            for variant, pid, before in zip(VARIANTS, pids, cpu_before, strict=True)
        }
        engine = trio.run(_engine_rounds, tmp)
    for title, samples in (
        ("governance: update_plan round trip over the bridge (goal: < 10% added)", bridge),
        ("governance: update_plan in the engine alone (admission -> Outcome)", engine),
    ):
        stats = {variant: summarize(values) for variant, values in samples.items()}
        print_table(title, [(v, stats[v]) for v in VARIANTS], baseline=VARIANTS[0])
        base = stats[VARIANTS[0]]["p50_ms"]
        for variant in VARIANTS[1:]:
            added = stats[variant]["p50_ms"] - base
            print(f"  {variant}: {added * 1000:+.1f} us per call, {added / base * 100:+.1f}%")
        if samples is bridge:
            # The audit line is written before the answer leaves, so latency includes it; the
            # service processes' own CPU time per call also counts what follows the answer
            # (the call task's end), which latency alone does not show.
            base_cpu = cpu_per_call[VARIANTS[0]]
            print(f"  service CPU per call: {VARIANTS[0]} {base_cpu * 1e6:.0f} us", end="")
            for variant in VARIANTS[1:]:
                extra = cpu_per_call[variant] - base_cpu
                print(f"; {variant} {extra * 1e6:+.0f} us ({extra / base_cpu * 100:+.1f}%)", end="")
            print()


if __name__ == "__main__":
    _serve_variant(sys.argv[1], Path(sys.argv[2]))
