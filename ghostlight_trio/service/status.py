"""A point-in-time status report for ``ghostlight status``, doctor and launch waits."""

from __future__ import annotations

import math
import os

from ..engine.engine import WorkEngine
from ..governance.governor import Governor
from ..transport.bridge import StatusReport, WorkspaceEntry
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
    listed = workspace_entries(workspaces, governor)
    return StatusReport(
        sequence=sequence,
        service_version=service_version,
        pid=os.getpid(),
        edges=streams.count("edge"),
        browsers=browser_summaries(browser),
        workspaces=len(listed),
        active_work=engine.active_work,
        held=governor is not None and governor.held,
        panicked=governor is not None and governor.panicked,
        quarantined=[key.describe() for key in engine.scheduler.quarantined],
        workspace_list=listed,
        audit_problem=engine.audit_problem(),
    )


def workspace_entries(
    workspaces: WorkspaceRegistry, governor: Governor | None = None
) -> list[WorkspaceEntry]:
    """Each live workspace as the user may see it, oldest first. Workspaces are named only by
    their keyed fingerprint (the audit's name, what ``resume --workspace`` takes); a paused one
    is found by comparing fingerprints, so no raw handle ever reaches the report."""
    paused = _paused_fingerprints(workspaces, governor)
    return [
        WorkspaceEntry(
            fingerprint=summary.fingerprint,
            label=summary.label,
            ordinal=summary.ordinal,
            tabs=summary.tabs,
            active_calls=summary.active_calls,
            clients=summary.held_by_streams,
            expires_in=None if summary.expires_in is None else math.ceil(summary.expires_in),
            paused=summary.fingerprint in paused,
        )
        for summary in workspaces.summaries()
    ]


def _paused_fingerprints(workspaces: WorkspaceRegistry, governor: Governor | None) -> set[str]:
    if governor is None:
        return set()
    named = (
        workspaces.fingerprint(handle)
        for handle in governor.attention.paused()
        if isinstance(handle, str)
    )
    return {name for name in named if name}
