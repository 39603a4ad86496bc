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
from ..governance.assembly import (
    BrowserRequests,
    GovernanceParts,
    default_files,
    governance_parts,
)
from ..governance.decision import HeldPages
from ..governance.governor import Governor
from ..governance.sources import PolicyFiles
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
        # The gate is made below: a frame is only recorded once the service runs.
        return await gate.may_see(None if workspace is None else WorkspaceId(workspace), tab)

    state = ToolState.over(shore, may_see=may_see)
    # A workspace that goes takes its kept screenshots, GIF recordings and plan with it (else
    # every workspace ever used would stay in memory for the service's life).
    workspaces.retire_listeners.append(state.forget_workspace)
    audit = RotatingAuditLog(endpoints.audit_file)
    governance = service_governance(endpoints, workspaces, shore, audit, held_pages=state.recorder.pages)
    gate, governor = governance.gate, governance.governor
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
        audit=audit,
        after_call=(state.recorder.after_call,),
    )


def service_governance(
    endpoints: Endpoints,
    workspaces: WorkspaceRegistry,
    browser: BrowserRequests | None,
    audit: RotatingAuditLog,
    *,
    files: PolicyFiles | None = None,
    held_pages: HeldPages | None = None,
) -> GovernanceParts:
    """Governance as the service runs it: policy from ``files`` (the data directory's by
    default), switches kept there, workspaces named as audit names them, events written to
    ``audit``."""
    return governance_parts(
        files or default_files(endpoints.data_dir),
        browser,
        fingerprint=workspaces.fingerprint,
        record_event=audit.event,
        held_pages=held_pages,
        switches_file=endpoints.data_dir / SWITCHES_FILE,
    )


def assemble(
    endpoints: Endpoints,
    workspaces: WorkspaceRegistry,
    handlers: Mapping[str, ToolHandler],
    browser: BrowserEndpoint | None,
    scheduler: Scheduler | None = None,
    *,
    policy: PolicyFiles | None = None,
    governance: GovernanceParts | None = None,
    audit: RotatingAuditLog | None = None,
    after_call: Sequence[AfterCall] = (),
) -> ServiceParts:
    """Catalog, scheduler, governance and engine around the given handlers (tests supply their
    own handlers, and may supply the policy files). ``governance``, when given, was made by
    ``service_governance`` over ``workspaces`` and ``audit``."""
    audit = audit or RotatingAuditLog(endpoints.audit_file)
    if governance is None:
        requests: Any = browser if hasattr(browser, "request") else None
        governance = service_governance(endpoints, workspaces, requests, audit, files=policy)
    # A workspace that goes takes its attention circuit (and a pause on it) with it.
    workspaces.retire_listeners.append(governance.governor.attention.forget)
    if browser is not None:
        stop_browsers_on_panic(governance.governor, browser)
        workspaces.retire_listeners.append(browser.workspace_ended)
    specs, governor = load_specs(), governance.governor
    catalog = Catalog(
        specs,
        handlers.keys(),
        advertised=governor.advertised(specs, handlers.keys()),
        restricted=not governor.state.all_open,
    )
    scheduler = scheduler or Scheduler()
    engine = WorkEngine(
        catalog=catalog, handlers=handlers, workspaces=workspaces, scheduler=scheduler,
        audit=audit, gate=governance.gate, after_call=after_call,
    )  # fmt: skip
    return ServiceParts(catalog, workspaces, scheduler, engine, browser, governance, audit)
