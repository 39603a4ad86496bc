"""Replay recorded calls against a candidate policy with the same pure decision as live calls.

Each call record names its tool, action and host, which is all a decision reads, so a replay
against the policy that was live reproduces its denial ids exactly. Calls that governance never
evaluated (held, invalid arguments) or that were refused before it looked (a tab the workspace
does not own: no policy could let those through) are skipped; a tab-bound call recorded without
a host (all-open reads none) replays as an undetermined host.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import attrs

from ..catalog.registry import ToolSpec
from .directory import Requirement
from .governor import PolicyState
from .hosts import Blank, Host, HostResolution, Indeterminate, OutOfScope, normalize_host
from .policy import (
    ALL_OPEN,
    PROTECTED_SCHEMES,
    Decision,
    combine,
    never_touch_decision,
    never_touch_match,
    protected_decision,
)

_EVALUATED = frozenset({"allow", "deny", "shadow_deny"})
_BEFORE_POLICY = frozenset({"unowned_tab"})


@attrs.frozen
class Replayed:
    record: Mapping[str, Any]
    decision: Decision

    @property
    def changed(self) -> bool:
        return self.decision.denial_id != (self.record.get("denial_id") or "")


def _resolution(spec: ToolSpec, host: Any) -> HostResolution | None:
    if isinstance(host, str) and host:
        if host == "about:blank":
            return Blank()
        if host.endswith(":"):
            return OutOfScope(host[:-1])
        # Named as the live decision names it now: a record written before every form of this
        # machine became one host holds ``127.0.0.1`` where a rule now reads ``localhost``.
        return Host(normalize_host(host) or host)
    tab_bound = "tabId" in spec.input_schema.get("properties", {})
    goes_to_page = spec.governance.page_argument is not None
    return Indeterminate("not recorded") if tab_bound or goes_to_page else None


def _requirement(spec: ToolSpec, action: Any) -> Requirement:
    key = action if isinstance(action, str) else "*"
    row = spec.capabilities.get(key)
    return Requirement(spec.name, action if isinstance(action, str) else None, None if row is None else frozenset(row))


def replay_one(record: Mapping[str, Any], spec: ToolSpec, state: PolicyState) -> Decision:
    requirement = _requirement(spec, record.get("action"))
    where = _resolution(spec, record.get("host"))
    goes_to_page = spec.governance.page_argument is not None
    if goes_to_page and isinstance(where, OutOfScope) and where.scheme in PROTECTED_SCHEMES:
        return protected_decision(where.scheme)  # refused whatever the policy, as live
    if requirement.needs == frozenset() and not (state.never_touch and isinstance(where, Host)):
        return combine(state.tiers, requirement, None) if state.tiers else ALL_OPEN
    pattern = never_touch_match(state.never_touch, where)
    if pattern is not None:
        return never_touch_decision(pattern)
    return combine(state.tiers, requirement, where) if state.tiers else ALL_OPEN


def simulate(
    records: Iterable[Mapping[str, Any]], specs: Mapping[str, ToolSpec], state: PolicyState
) -> list[Replayed]:
    replayed = []
    for record in records:
        spec = specs.get(str(record.get("tool")))
        if (
            spec is None
            or record.get("decision") not in _EVALUATED
            or record.get("rule") in _BEFORE_POLICY
        ):
            continue
        replayed.append(Replayed(record, replay_one(record, spec, state)))
    return replayed
