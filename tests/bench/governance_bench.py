"""Governance + audit overhead on a service-local call (update_plan), in one run.

Three services, identical but for the chokepoint: no gate and no audit (the baseline), the real
gate all-open with the JSONL audit, and the real gate under a 50-grant policy with the audit.
Each is driven over its real bridge socket; calls go round-robin (one to each service in
turn), so machine drift hits all three alike. A second table times the engine alone (admission to Outcome, no socket) to show the
absolute cost the chokepoint adds per call.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
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
from ghostlight_trio.tools.plan import PlanBook
from ghostlight_trio.transport.bridge import Outcome, RequestContext, Start, Started
from ghostlight_trio.transport.endpoints import Endpoints
from ghostlight_trio.transport.handshake import open_bridge
from ghostlight_trio.workspace import WorkspaceRegistry

from .harness import print_table, summarize

CALLS = 2000
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


def _endpoints(tmp: Path, name: str) -> Endpoints:
    runtime = tmp / f"run-{name}"
    runtime.mkdir(mode=0o700)
    saved = {k: os.environ.get(k) for k in ("XDG_RUNTIME_DIR", "GHOSTLIGHT_HOME")}
    os.environ.update(XDG_RUNTIME_DIR=str(runtime), GHOSTLIGHT_HOME=str(tmp / f"home-{name}"))
    try:
        return Endpoints.for_instance(name)
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


async def _bridge_rounds(tmp: Path) -> dict[str, list[float]]:
    samples: dict[str, list[float]] = {variant: [] for variant in VARIANTS}
    async with trio.open_nursery() as nursery:
        streams = {}
        for index, variant in enumerate(VARIANTS):
            endpoints = _endpoints(tmp, f"gov{index}")

            def build(ep: Endpoints, variant: str = variant) -> ServiceParts:
                engine, catalog, workspaces, scheduler = _engine(variant, tmp)
                return ServiceParts(catalog, workspaces, scheduler, engine, None)

            await nursery.start(
                lambda task_status, ep=endpoints, b=build: run_service(
                    ep, keep_warm=True, build=b, handle_signals=False, task_status=task_status
                )
            )
            streams[variant], _ = await open_bridge(endpoints)
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
        nursery.cancel_scope.cancel()
    return samples


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
    with tempfile.TemporaryDirectory(prefix="glt-gov-bench-") as raw:
        tmp = Path(raw)
        bridge = trio.run(_bridge_rounds, tmp)
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
            print(f"  {variant}: +{added * 1000:.1f} us per call, +{added / base * 100:.1f}%")
