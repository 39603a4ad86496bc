"""The one place the service is assembled: catalog, handlers, workspaces, scheduler, engine and
the browser shore."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
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
from ..governance.explain import explain_handler
from ..governance.governor import Governor
from ..governance.switches import SWITCHES_FILE
from ..scheduler import Scheduler
from ..tools.compositions import composition_handlers
from ..tools.update_plan import PlanBook
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
class BrowserParts:
    shore: BrowserEndpoint
    handlers: Mapping[str, ToolHandler]
    after_call: tuple[AfterCall, ...] = ()
    """Told of every successful call on a tab (a GIF recording's frames)."""
    held_pages: Callable[[str | None, int], Sequence[str]] | None = None
    """The pages what the shore's tools hold for a tab shows (a recording's frames), for
    governing a call on that alone once the tab has left its workspace."""


@attrs.frozen
class ServiceParts:
    catalog: Catalog
    workspaces: WorkspaceRegistry
    scheduler: Scheduler
    engine: WorkEngine
    browser: BrowserEndpoint | None
    governance: GovernanceParts | None = None
    audit: RotatingAuditLog | None = None


def browser_parts(
    endpoints: Endpoints,
    workspaces: WorkspaceRegistry,
    scheduler: Scheduler,
    redact: Callable[[], bool] = lambda: True,
    may_see: Callable[[str | None, int], Awaitable[bool]] | None = None,
) -> BrowserParts:
    """The browser shore and the tools that need it. ``may_see`` is the policy's word on
    seeing a tab's page as it is now (for frames recorded after calls)."""
    from ..browser.shore import BrowserShore
    from ..tools.act_on import act_on_handlers
    from ..tools.browser_context import context_handlers
    from ..tools.file_upload import file_upload_handlers
    from ..tools.form_fill.tool import form_fill_handlers
    from ..tools.gif_creator.recorder import Recorder
    from ..tools.gif_creator.tool import gif_creator_handlers
    from ..tools.more_tools import more_tool_handlers
    from ..tools.narrate import narrate_handlers
    from ..tools.page_tools import page_tool_handlers
    from ..tools.shared.channel import PageChannel
    from ..tools.shared.image_store import ImageStore
    from ..tools.shared.screenshots import ContextBook
    from ..tools.shared.tab_changes import noting_tab_changes
    from ..tools.upload_image import upload_image_handlers

    shore = BrowserShore(endpoints, workspaces, service_version=__version__, scheduler=scheduler)
    images, contexts = ImageStore(), ContextBook()
    recorder = Recorder(PageChannel(shore), contexts, may_see=may_see)
    # A workspace that goes takes its kept screenshots and GIF recordings with it.
    workspaces.retire_listeners.append(images.forget_workspace)
    workspaces.retire_listeners.append(recorder.forget_workspace)
    handlers = {
        **context_handlers(workspaces, shore),
        **page_tool_handlers(workspaces, shore, redact=redact, contexts=contexts, images=images),
        **upload_image_handlers(workspaces, shore, images=images, contexts=contexts),
        **more_tool_handlers(workspaces, shore),
        **form_fill_handlers(workspaces, shore),
        **file_upload_handlers(workspaces, shore),
        **act_on_handlers(workspaces, shore),
        **narrate_handlers(workspaces, shore),
        **gif_creator_handlers(workspaces, shore, recorder=recorder, contexts=contexts),
    }
    return BrowserParts(
        shore=shore,
        handlers=noting_tab_changes(handlers, shore.tab_journal, workspaces),
        after_call=(recorder.after_call,),
        held_pages=recorder.pages,
    )


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
    workspaces = WorkspaceRegistry()
    scheduler = Scheduler()
    governance: dict[str, GovernanceParts] = {}

    def redact() -> bool:
        return governance["parts"].governor.state.redact_secrets

    async def may_see(workspace: str | None, tab: int) -> bool:
        return await governance["parts"].gate.may_see(
            None if workspace is None else WorkspaceId(workspace), tab
        )

    browser = browser_parts(endpoints, workspaces, scheduler, redact, may_see)
    governance["parts"] = governance_parts(
        default_files(endpoints.data_dir),
        browser.shore,
        switches_file=endpoints.data_dir / SWITCHES_FILE,
    )
    governance["parts"].gate.held_pages = browser.held_pages
    plans = PlanBook()
    # A workspace that goes takes its plan with it (else every workspace ever planned in
    # would stay in memory for the service's life).
    workspaces.retire_listeners.append(plans.forget_workspace)
    handlers: dict[str, ToolHandler] = {
        "update_plan": plans.update_plan,
        **browser.handlers,
        **composition_handlers(),
        "explain": explain_handler(governance["parts"].governor, load_specs()),
    }
    return assemble(
        endpoints,
        workspaces,
        handlers,
        browser.shore,
        scheduler,
        governance=governance["parts"],
        after_call=browser.after_call,
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
        catalog=catalog,
        handlers=handlers,
        workspaces=workspaces,
        scheduler=scheduler,
        audit=audit,
        gate=governance.gate,
        after_call=after_call,
    )
    return ServiceParts(
        catalog=catalog,
        workspaces=workspaces,
        scheduler=scheduler,
        engine=engine,
        browser=browser,
        governance=governance,
        audit=audit,
    )
