"""One call's policy and how its verdicts are recorded and worded.

Shared by the decision before a call runs (``decision``) and the checks after it
(``landing``, ``reach``): a call is judged at a place by its ``CallPolicy`` (never-touch
first, then the tiers), the verdict goes to the audit record as ``GateFacts`` and a denial
is answered in the words of ``denial``.
"""

from __future__ import annotations

from typing import TypeGuard

import attrs

from ..engine.gate import GateFacts
from . import denial
from .directory import Requirement
from .governor import PolicyState
from .hosts import Blank, Host, HostPattern, HostResolution, OutOfScope
from .policy import (
    ALL_OPEN,
    NEVER_TOUCH_TIER,
    PROTECTED_SCHEMES,
    Decision,
    TierPolicy,
    combine,
    never_touch_decision,
    never_touch_match,
)

Tiers = tuple[tuple[str, TierPolicy], ...]
READ = frozenset({"read"})


@attrs.frozen
class CallPolicy:
    """What a call was decided against, kept for the checks once it has run."""

    tiers: Tiers
    never_touch: tuple[HostPattern, ...]
    requirement: Requirement

    def decide(self, where: HostResolution) -> Decision:
        """This call's requirement judged at ``where``: never-touch first, then the tiers."""
        pattern = never_touch_match(self.never_touch, where)
        if pattern is not None:
            return never_touch_decision(pattern)
        if self.tiers:
            return combine(self.tiers, self.requirement, where)
        return ALL_OPEN


def reading(state: PolicyState, tool: str, action: str | None = None) -> CallPolicy | None:
    """Reading a page with ``tool``, judged under ``state`` (never-touch first, then the
    tiers); None when all is open."""
    if not state.tiers and not state.never_touch:
        return None
    return CallPolicy(state.tiers, state.never_touch, Requirement(tool, action, READ))


def is_protected(where: HostResolution | None) -> TypeGuard[OutOfScope]:
    """A page no agent is let into, under any policy (the browser's own, an extension's, a
    file)."""
    return isinstance(where, OutOfScope) and where.scheme in PROTECTED_SCHEMES


def host_text(where: HostResolution | None) -> str | None:
    """How audit names a resolution: the host, ``about:blank``, ``<scheme>:`` or nothing."""
    if isinstance(where, Host):
        return where.name
    if isinstance(where, Blank):
        return "about:blank"
    if isinstance(where, OutOfScope):
        return f"{where.scheme}:"
    return None


def gate_facts(needed: Requirement, where: HostResolution | None, decision: Decision) -> GateFacts:
    """What the call's audit record says of ``decision``."""
    return GateFacts(
        action=needed.action,
        host=host_text(where),
        decision=decision.verdict,
        rule=decision.rule,
        grant=decision.grant,
        denial_id=decision.denial_id,
        manifest=decision.manifest,
    )


def denial_text(decision: Decision, needed: Requirement, where: HostResolution | None) -> str:
    host = host_text(where)
    if decision.tier == NEVER_TOUCH_TIER:
        return denial.never_touch_text(decision.denial_id, host or "this site")
    return denial.policy_text(
        decision.denial_id,
        needed.label,
        host,
        decision.rule,
        decision.grant,
        list(decision.missing),
        decision.tier,
    )
