"""The one place the service is assembled: catalog, handlers, workspaces, scheduler, engine and
the browser shore."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

import attrs
import trio

from .. import __version__
from ..catalog.registry import Catalog, load_specs
from ..engine.audit import JsonlAuditLog
from ..engine.contracts import ToolHandler
from ..engine.engine import WorkEngine
from ..scheduler import Scheduler
from ..tools.plan import PlanBook
from ..transport.bridge import BrowserSummary
from ..transport.endpoints import Endpoints
from ..workspace import WorkspaceRegistry


class BrowserEndpoint(Protocol):
    """What the service needs from its browser shore."""

    @property
    def connected_count(self) -> int: ...

    async def serve(self, *, task_status: trio.TaskStatus[None] = ...) -> None: ...

    def summaries(self) -> list[BrowserSummary]: ...


def browser_summaries(browser: BrowserEndpoint | None) -> list[BrowserSummary]:
    """The attached browsers, for status reports."""
    return [] if browser is None else browser.summaries()


@attrs.frozen
class BrowserParts:
    shore: BrowserEndpoint
    handlers: Mapping[str, ToolHandler]


@attrs.frozen
class ServiceParts:
    catalog: Catalog
    workspaces: WorkspaceRegistry
    scheduler: Scheduler
    engine: WorkEngine
    browser: BrowserEndpoint | None


def browser_parts(
    endpoints: Endpoints, workspaces: WorkspaceRegistry, scheduler: Scheduler
) -> BrowserParts:
    """The browser shore and the tools that need it."""
    from ..browser.shore import BrowserShore
    from ..tools.browser_context import context_handlers
    from ..tools.page_tools import page_tool_handlers

    shore = BrowserShore(endpoints, workspaces, service_version=__version__, scheduler=scheduler)
    handlers = {**context_handlers(workspaces, shore), **page_tool_handlers(workspaces, shore)}
    return BrowserParts(shore=shore, handlers=handlers)


def build_service_parts(endpoints: Endpoints) -> ServiceParts:
    """Everything ``run_service`` serves, wired together."""
    workspaces = WorkspaceRegistry()
    scheduler = Scheduler()
    browser = browser_parts(endpoints, workspaces, scheduler)
    handlers: dict[str, ToolHandler] = {"update_plan": PlanBook().update_plan, **browser.handlers}
    return assemble(endpoints, workspaces, handlers, browser.shore, scheduler)


def assemble(
    endpoints: Endpoints,
    workspaces: WorkspaceRegistry,
    handlers: Mapping[str, ToolHandler],
    browser: BrowserEndpoint | None,
    scheduler: Scheduler | None = None,
) -> ServiceParts:
    """Catalog, scheduler and engine around the given handlers (tests supply their own)."""
    catalog = Catalog(load_specs(), available=handlers.keys())
    scheduler = scheduler or Scheduler()
    engine = WorkEngine(
        catalog=catalog,
        handlers=handlers,
        workspaces=workspaces,
        scheduler=scheduler,
        audit=JsonlAuditLog(endpoints.audit_file),
    )
    return ServiceParts(
        catalog=catalog, workspaces=workspaces, scheduler=scheduler, engine=engine, browser=browser
    )
