"""One terminal audit record per settled call, as the engine hands it to its audit hook.

The service's hook writes it (``ghostlight_trio.audit.log``). Auditing is best effort: a hook
failure is logged and never changes the call's outcome. Workspaces appear only as keyed
fingerprints.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

import attrs

log = logging.getLogger("ghostlight.audit")


@attrs.frozen
class AuditRecord:
    time: float
    """Wall-clock seconds since the epoch when the call settled."""
    work_id: str
    operation: str
    workspace: str | None
    """Keyed fingerprint of the workspace, never the raw handle."""
    outcome: str
    """How the call really settled."""
    reported: str | None
    """What the caller was told (``outcome_unknown`` when the reply deadline came first;
    None when it was told nothing: it cancelled the call, or left)."""
    duration: float
    effects_dispatched: int = 0
    client: str = ""
    """The caller's self-reported label (presentation only)."""
    action: str | None = None
    host: str | None = None
    """The normalised host the decision was about; never a path or query."""
    decision: str | None = None
    rule: str = ""
    grant: str = ""
    denial_id: str = ""
    manifest: str | None = None


AuditHook = Callable[[AuditRecord], None]
"""Writes a call's terminal record. A hook that also has a ``dispatched`` method of the same
shape is told when a call sends its first effect, before it is sent (``outcome`` is then
``dispatched``): a trail that outlives a service stopped mid-call can still name that call."""


def safe_audit(hook: AuditHook, record: AuditRecord) -> None:
    """Call ``hook``; whatever it raises is logged, never propagated into the call."""
    try:
        hook(record)
    except Exception:
        log.exception("audit hook failed for work %s", record.work_id)
