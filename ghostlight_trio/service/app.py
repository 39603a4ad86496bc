"""The one place the service is assembled: catalog, handlers, workspaces, scheduler, engine and
the browser shore."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

import attrs
import trio

from .. import __version__
from ..audit.log import RotatingAuditLog
from ..catalog.registry import Catalog, load_specs
from ..engine.contracts import ToolHandler, WorkspaceId
from ..engine.engine import WorkEngine
from ..engine.runner import AfterCall
from ..governance.assembly import GovernanceParts, advertise, default_files, governance_parts
from ..governance.governor import Governor
from ..governance.switches import SWITCHES_FILE
from ..scheduler import Scheduler
from ..transport.bridge import BrowserSummary
from ..transport.endpoints import Endpoints
from ..workspace import WorkspaceRegistry


class BrowserEndpoint(Protocol):
    """What the service needs from its browser shore."""

    @property
    def connected_count(self) -> int: ...

    async def serve(self, *, task_status: trio.TaskStatus[None] = ...) -> None: ...

    def summaries(self) -> list[BrowserSummary]: ...

    def stop_all(self) -> int:
        """Tell every attached browser to stop what it is running (the kill switch)."""
        ...

    def workspace_ended(self, workspace_id: Any) -> None:
        """Tell the browsers a workspace is over, so its tab group no longer looks live."""
        ...


def browser_summaries(browser: BrowserEndpoint | None) -> list[BrowserSummary]:
    """The attached browsers, for status reports."""
    return [] if browser is None else browser.summaries()


@attrs.frozen
class ServiceParts:
    catalog: Catalog
    workspaces: WorkspaceRegistry
    scheduler: Scheduler
    engine: WorkEngine
    browser: BrowserEndpoint | None
    governance: GovernanceParts | None = None
    audit: RotatingAuditLog | None = None


def stop_browsers_on_panic(governor: Governor, browsers: BrowserEndpoint) -> None:
    """The kill switch reaches the browser too: requests already dispatched stop waiting there
    and answer at once, instead of draining for as long as their own bounds allow. Hold does
    not: it lets work already running finish."""

    def on_switch(what: str) -> None:
        if what == "panic":
            browsers.stop_all()

    governor.listeners.append(on_switch)


def build_service_parts(endpoints: Endpoints) -> ServiceParts:
    """Everything ``run_service`` serves, wired together."""
    from ..browser.shore import BrowserShore
    from ..tools.registry import ToolDeps, ToolState, tool_handlers

    workspaces = WorkspaceRegistry()
    scheduler = Scheduler()
    shore = BrowserShore(endpoints, workspaces, service_version=__version__, scheduler=scheduler)

    async def may_see(workspace: str | None, tab: int) -> bool:
        # The gate is made next: a frame is only recorded once the service runs.
        return await governance.gate.may_see(
            None if workspace is None else WorkspaceId(workspace), tab
        )

    state = ToolState.over(shore, may_see=may_see)
    governance = governance_parts(
        default_files(endpoints.data_dir), shore, switches_file=endpoints.data_dir / SWITCHES_FILE
    )
    governance.gate.held_pages = state.recorder.pages
    # A workspace that goes takes its kept screenshots, GIF recordings and plan with it (else
    # every workspace ever used would stay in memory for the service's life).
    workspaces.retire_listeners.append(state.forget_workspace)
    governor = governance.governor
    deps = ToolDeps(
        shore,
        workspaces,
        governor=governor,
        state=state,
        journal=shore.tab_journal,
        redact=lambda: governor.state.redact_secrets,
    )
    return assemble(
        endpoints,
        workspaces,
        tool_handlers(deps),
        shore,
        scheduler,
        governance=governance,
        after_call=(state.recorder.after_call,),
    )


def assemble(
    endpoints: Endpoints,
    workspaces: WorkspaceRegistry,
    handlers: Mapping[str, ToolHandler],
    browser: BrowserEndpoint | None,
    scheduler: Scheduler | None = None,
    *,
    governance: GovernanceParts | None = None,
    after_call: Sequence[AfterCall] = (),
) -> ServiceParts:
    """Catalog, scheduler, governance and engine around the given handlers (tests supply their
    own handlers, and may supply governance)."""
    if governance is None:
        requests: Any = browser if hasattr(browser, "request") else None
        governance = governance_parts(
            default_files(endpoints.data_dir),
            requests,
            switches_file=endpoints.data_dir / SWITCHES_FILE,
        )
    governance.governor.fingerprint = workspaces.fingerprint
    # A workspace that goes takes its attention circuit (and a pause on it) with it.
    workspaces.retire_listeners.append(governance.governor.attention.forget)
    if browser is not None:
        stop_browsers_on_panic(governance.governor, browser)
        workspaces.retire_listeners.append(browser.workspace_ended)
    catalog = Catalog(load_specs(), available=handlers.keys())
    advertise(governance.governor, catalog, handlers.keys())
    catalog.generation = 1
    scheduler = scheduler or Scheduler()
    audit = RotatingAuditLog(endpoints.audit_file)
    governance.governor.record_event = audit.event
    engine = WorkEngine(
        catalog=catalog, handlers=handlers, workspaces=workspaces, scheduler=scheduler,
        audit=audit, gate=governance.gate, after_call=after_call,
    )  # fmt: skip
    return ServiceParts(catalog, workspaces, scheduler, engine, browser, governance, audit)
