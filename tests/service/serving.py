"""An in-process service for the service tests: ``run_service`` started in the test's nursery."""

from __future__ import annotations

from typing import Any

import trio

from ghostlight_trio.service import run_service
from ghostlight_trio.service.app import assemble
from ghostlight_trio.tools.update_plan import PlanBook
from ghostlight_trio.workspace import WorkspaceRegistry


def plan_only(endpoints):
    """Service parts that offer only ``update_plan`` (no browser tools)."""
    return assemble(endpoints, WorkspaceRegistry(), {"update_plan": PlanBook().update_plan}, None)


async def start_service(nursery: trio.Nursery, endpoints, **options: Any) -> Any:
    """Start ``run_service`` in ``nursery`` and wait until it serves: the running service.

    Defaults: kept warm, ``plan_only`` parts, no signal handlers (pass ``build=`` or any other
    ``run_service`` option to change them)."""
    options.setdefault("keep_warm", True)
    options.setdefault("build", plan_only)
    options.setdefault("handle_signals", False)
    return await nursery.start(
        lambda task_status: run_service(endpoints, task_status=task_status, **options)
    )
