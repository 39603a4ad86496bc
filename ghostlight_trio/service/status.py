"""A point-in-time status report for ``ghostlight status``, doctor and launch waits."""

from __future__ import annotations

import os

from ..engine.engine import WorkEngine
from ..governance.governor import Governor
from ..transport.bridge import StatusReport
from ..workspace import WorkspaceRegistry
from .app import BrowserEndpoint, browser_summaries
from .streams import LiveStreams


def status_report(
    sequence: int,
    *,
    service_version: str,
    streams: LiveStreams,
    workspaces: WorkspaceRegistry,
    engine: WorkEngine,
    browser: BrowserEndpoint | None,
    governor: Governor | None = None,
) -> StatusReport:
    return StatusReport(
        sequence=sequence,
        service_version=service_version,
        pid=os.getpid(),
        edges=streams.count("edge"),
        browsers=browser_summaries(browser),
        workspaces=len(workspaces),
        active_work=engine.active_work,
        held=governor is not None and governor.held,
        panicked=governor is not None and governor.panicked,
        quarantined=[key.describe() for key in engine.scheduler.quarantined],
    )
