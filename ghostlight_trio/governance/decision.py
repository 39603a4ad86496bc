"""The decision on one call, made once it holds its lease, so nothing else can move its tab.

The call's host is read from the live tab, or, for a tool whose catalog entry declares a page
argument, from the page it goes to; the never-touch list is checked first (always, in every
mode), then the policy tiers and the request's own restriction. All-open with an empty
never-touch list reads no host at all, and a call that needs nothing of a host is decided once
per requirement and policy.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs

from ..catalog.facts import PageArgument
from ..engine.call import CallState
from ..engine.contracts import WorkspaceId
from ..engine.gate import GateFacts, GateStop
from ..engine.resources import tab_id_argument
from . import denial
from .directory import Requirement, requirement
from .governor import Governor
from .hosts import HostPattern, HostResolution, OutOfScope, resolve_url
from .policy import (
    ALL_OPEN,
    Decision,
    combine,
    never_touch_decision,
    never_touch_match,
    protected_decision,
)
from .switchboard import Switchboard, exempt
from .tab_access import TabAccess
from .verdicts import CallPolicy, Tiers, denial_text, gate_facts, host_text, is_protected

HeldPages = Callable[[WorkspaceId, int], Sequence[str]]
"""The URLs of the pages what the service holds for a workspace's tab shows, oldest first."""
Address = Callable[[str], "str | None"]
"""The URL the browser loads for an address as a call gives it, or None for no page."""
_MEMO_LIMIT = 512


@attrs.frozen
class GateParts:
    """What every check of a call consults: the policy now, the switchboard that counts its
    denials, and the browser's word on its tab."""

    governor: Governor
    switchboard: Switchboard
    tabs: TabAccess


class Authorizer:
    """Decides calls, and keeps each running call's policy for the checks after it."""

    def __init__(self, parts: GateParts, address: Address, held_pages: HeldPages | None) -> None:
        self._parts = parts
        self._address = address
        self._held_pages = held_pages
        """The pages what the service holds for a tab shows (a recording's frames)."""
        self._policies: dict[CallState, CallPolicy] = {}
        self._memo_tiers: object = None
        self._memo: dict[Requirement, tuple[Decision, GateFacts]] = {}

    def policy_of(self, call: CallState) -> CallPolicy | None:
        """The policy ``call`` was decided against at a host; None when it was judged without
        one (or all is open)."""
        return self._policies.get(call)

    def requirement_of(self, call: CallState) -> Requirement:
        """What the call needs, as its policy was judged (or, all-open, as the catalog says)."""
        policy = self._policies.get(call)
        return policy.requirement if policy is not None else requirement(call.spec, call.arguments)

    def forget(self, call: CallState) -> None:
        self._policies.pop(call, None)

    async def authorize(self, call: CallState) -> GateStop | None:
        stop = self._parts.switchboard.check(call)
        if stop is not None:
            return stop
        spec, arguments = call.spec, call.arguments
        state = self._parts.governor.state
        tiers, never_touch = state.tiers, state.never_touch
        raw_restriction = call.context.restriction
        if raw_restriction is not None and not exempt(call):
            restriction = self._parts.governor.restriction(raw_restriction)
            if restriction.tier is None:
                return self._deny_invalid_restriction(call, restriction.hash)
            tiers = (*tiers, ("restriction", restriction.tier))
            if restriction.never_touch:
                never_touch = (*never_touch, *restriction.never_touch)
        page = spec.governance.page_argument
        needed = requirement(spec, arguments)
        if call.tab_left:
            return self._judge_held(call, tiers, never_touch, needed)
        if not tiers and not never_touch:  # all-open: nothing to read, only the facts to record
            if page is None:
                return self._hostless(call, tiers, needed)
            target = self._target(page, arguments)
            if is_protected(target):
                return self._deny_protected(call, needed, target)
            call.gate_facts = GateFacts(
                action=needed.action, host=host_text(target), decision="allow", rule="all_open"
            )
            return None
        tab = tab_id_argument(arguments) if "tabId" in arguments else None
        where: HostResolution | None = None
        if page is not None:
            self._policies[call] = CallPolicy(tiers, never_touch, needed)
            where = self._target(page, arguments)
            if where is None:  # back/forward: judged by the page now, then by the landing
                where = await self._parts.tabs.read(call, tab)
        elif tab is not None and (never_touch or (tiers and needed.needs)):
            where = await self._parts.tabs.read(call, tab)
            self._policies[call] = CallPolicy(tiers, never_touch, needed)
        elif raw_restriction is None:
            return self._hostless(call, tiers, needed)
        if page is not None and is_protected(where):
            return self._deny_protected(call, needed, where)
        pattern = never_touch_match(never_touch, where)
        if pattern is not None:
            decision = never_touch_decision(pattern)
        elif tiers:
            domain = where if (page is not None or tab is not None) else None
            decision = combine(tiers, needed, domain)
        else:
            decision = ALL_OPEN
        return self.decided(call, needed, where, decision)

    def _target(self, page: PageArgument, arguments: Mapping[str, Any]) -> HostResolution | None:
        """The page the call goes to, as the browser will load it; None for a move through
        history or an address that is no page."""
        url = self._address(str(arguments.get(page.name, "")))
        if url is None or url in page.history:
            return None
        return resolve_url(url)

    def decided(
        self, call: CallState, needed: Requirement, where: HostResolution | None, decision: Decision
    ) -> GateStop | None:
        """Record the decision for the audit; a denial is counted and answered."""
        call.gate_facts = gate_facts(needed, where, decision)
        if decision.verdict != "deny":
            return None
        self._parts.switchboard.count_denial(call, where, needed, decision)
        return GateStop("denied", denial_text(decision, needed, where))

    def _deny_protected(self, call: CallState, needed: Requirement, where: OutOfScope) -> GateStop:
        decision = protected_decision(where.scheme)
        call.gate_facts = gate_facts(needed, where, decision)
        self._parts.switchboard.count_denial(call, where, needed, decision)
        return GateStop("denied", denial.protected_text(decision.denial_id, where.scheme))

    def _hostless(self, call: CallState, tiers: Tiers, needed: Requirement) -> GateStop | None:
        """A call judged without a host (no tab, no page argument, or all-open) under the
        governor's own tiers: its decision depends on the requirement alone, so it is computed
        once per requirement and policy generation (a reload replaces the tiers and empties the
        memo)."""
        if tiers is not self._memo_tiers or len(self._memo) >= _MEMO_LIMIT:
            self._memo_tiers, self._memo = tiers, {}
        known = self._memo.get(needed)
        if known is None:
            decision = combine(tiers, needed, None) if tiers else ALL_OPEN
            known = self._memo[needed] = (decision, gate_facts(needed, None, decision))
        decision, call.gate_facts = known
        if decision.verdict != "deny":
            return None
        self._parts.switchboard.count_denial(call, None, needed, decision)
        return GateStop("denied", denial_text(decision, needed, None))

    def _judge_held(
        self,
        call: CallState,
        tiers: Tiers,
        never_touch: tuple[HostPattern, ...],
        needed: Requirement,
    ) -> GateStop | None:
        """A call on what the service holds for a tab that has left the workspace (a
        recording, exported or looked at after its tab closed): the tab is never read, for it
        may be another workspace's by now. What the call needs is judged at each page the held
        state shows (the recording's frames), never-touch first and then the tiers; with no
        such page, or when it needs nothing of a page, it is judged without a host."""
        workspace, tab = call.context.workspace_id, tab_id_argument(call.arguments)
        pages = self._held_pages
        urls = (
            pages(workspace, tab)
            if needed.needs and pages is not None and workspace is not None and tab is not None
            else ()
        )
        places = list(dict.fromkeys(resolve_url(url) for url in urls))
        if not places:
            return self._hostless(call, tiers, needed)
        policy = CallPolicy(tiers, never_touch, needed)
        judged = [(where, policy.decide(where)) for where in places]
        # The first page that denies decides; else the first only observed as denied; else
        # the last page, where the recording ended.
        denied = [pair for pair in judged if pair[1].verdict == "deny"]
        observed = [pair for pair in judged if pair[1].verdict == "shadow_deny"]
        where, decision = (denied or observed or judged[-1:])[0]
        return self.decided(call, needed, where, decision)

    def _deny_invalid_restriction(self, call: CallState, digest: str) -> GateStop:
        decision = Decision("deny", "restriction_invalid", tier="restriction", manifest_hash=digest)
        needed = requirement(call.spec, call.arguments)
        call.gate_facts = gate_facts(needed, None, decision)
        return GateStop("denied", denial_text(decision, needed, None))
