"""One terminal audit record per settled call, as the engine hands it to its audit hook.

The service's hook writes it (``ghostlight_trio.audit.log``). Workspaces appear only as keyed
fingerprints. A hook that raises is logged and never changes the call's outcome; but a hook that
can tell its records are not being written (an ``unwritable`` method: the reason, or "") makes
the audit fail closed: while it says so, the runner refuses every call that is not
service-local before anything of it runs, and a call whose ``dispatched`` line (written ahead of
its first browser request) did not reach the trail sends nothing and is refused the same way.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

import attrs

from .gate import GateFacts

log = logging.getLogger("ghostlight.audit")


@attrs.frozen(kw_only=True)
class AuditRecord(GateFacts):
    """A settled call: what it was, how it ended, and the gate's facts about its decision."""

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


class AuditUnavailable(Exception):
    """Raised in place of a call's first browser request when its ``dispatched`` line could not
    be written: nothing was sent. ``text`` is the refusal the caller gets."""

    def __init__(self, reason: str) -> None:
        self.text = audit_refusal(reason)
        super().__init__(self.text)


def audit_refusal(reason: str) -> str:
    """What a call refused for an unwritable audit is told: why, and what to do."""
    return (
        f"Refused: the audit log cannot be written ({reason}); Ghostlight does not act"
        " unrecorded. Free space on that disk (or fix the file), then call again."
    )
