"""The checks on a call's result: where its tab ended up, and what its answer may show.

A call allowed on one page may leave its tab on another: a navigation lands after redirects,
a click follows a link, a page's own script moves on. Where the result (or, failing that, the
live tab) says the tab is now is judged like the call itself; a page the call could not have
been made on is withheld and the tab parked on ``about:blank``. A call that needed nothing of a
page still answers for what its tab shows, and a tab listing shows pages the workspace may not
read by their origin only (``listing``).
"""

from __future__ import annotations

import attrs

from ..engine.call import CallState
from ..engine.contracts import Effects, ToolResult
from ..engine.gate import GateFacts
from ..engine.resources import tab_id_argument
from ..transport.bridge import TextBlock
from . import denial
from .decision import Authorizer, GateParts
from .directory import Requirement, action_of
from .hosts import Blank, Host, HostResolution, resolve_url
from .listing import withhold_listed
from .policy import PROTECTED_PAGE, Decision, protected_decision
from .result_facts import ResultFacts, read_result
from .verdicts import CallPolicy, gate_facts, host_text, is_protected, reading


@attrs.frozen
class LandingChecks:
    parts: GateParts
    decided: Authorizer

    async def after(self, call: CallState, effects: Effects, result: ToolResult) -> ToolResult:
        facts = call.gate_facts
        if facts is not None and result.kind == "denied" and facts.decision != "deny":
            return self._refused_by_browser(call, facts, result)
        if facts is None or result.kind != "ok":
            return result
        governance = call.spec.governance
        seen = read_result(result.structured, governance.landing)
        if seen.landing is not None:
            if not seen.landing.arrived:
                # Nothing landed yet (the server has not answered), or nothing will (a
                # download): the tab still shows the page it had, and the record keeps the
                # host the call was decided on, so a replay judges what was asked for.
                return result
            landing = resolve_url(seen.landing.url)
            return await self._check_landing(call, effects, result, landing)
        policy = self.decided.policy_of(call)
        if policy is not None:
            return await self._check_moved_on(call, effects, result, policy, seen)
        closed = self._closed_page(call, seen)
        if closed is not None:
            needed, where, decision = closed
            call.gate_facts = gate_facts(needed, where, decision)
            text = denial.closed_page_text(decision.denial_id, call.spec.name, where.name)
            return await self._deny_and_park(call, effects, needed, where, decision, text)
        if governance.tab_list is not None:
            listing = reading(self.parts.governor.state, call.spec.name)
            if listing is not None:
                result = withhold_listed(
                    result, governance.tab_list, lambda host: listing.decide(host).verdict == "deny"
                )
        if facts.host is None and seen.origin is not None:
            call.gate_facts = attrs.evolve(facts, host=host_text(resolve_url(seen.origin)))
        return result

    def _refused_by_browser(
        self, call: CallState, facts: GateFacts, result: ToolResult
    ) -> ToolResult:
        """The extension refused the call on a page no agent may enter (the browser's own, an
        extension's, a file), which the tab showed without this call having asked for it: the
        record says so, the refusal counts like any denial, and the agent reads it as one."""
        decision = protected_decision(PROTECTED_PAGE)
        call.gate_facts = attrs.evolve(
            facts, decision="deny", rule=decision.rule, denial_id=decision.denial_id
        )
        self.parts.switchboard.count_denial(call, None, self.decided.requirement_of(call), decision)
        said = " ".join(block.text for block in result.content if isinstance(block, TextBlock))
        return ToolResult.text(denial.protected_page_text(decision.denial_id, said), kind="denied")

    def _closed_page(
        self, call: CallState, seen: ResultFacts
    ) -> tuple[Requirement, Host, Decision] | None:
        """A call that needs nothing of a page (focusing a tab, say) still answers for what
        the tab shows. When that is a page this workspace may not read (a navigation an
        earlier call set off, landed after it answered), what was judged, where, and the
        denial that closes it; else None."""
        url = seen.page_url
        action = action_of(call.spec, call.arguments)
        policy = reading(self.parts.governor.state, call.spec.name, action)
        if policy is None or url is None or tab_id_argument(call.arguments) is None:
            return None
        where = resolve_url(url)
        if not isinstance(where, Host):
            return None
        decision = policy.decide(where)
        return (policy.requirement, where, decision) if decision.verdict == "deny" else None

    async def _check_landing(
        self, call: CallState, effects: Effects, result: ToolResult, landing: HostResolution
    ) -> ToolResult:
        facts = call.gate_facts
        assert facts is not None
        policy = self.decided.policy_of(call)
        if is_protected(landing):
            # Reached by a redirect or through history: refused in every mode, as asked for.
            needed = self.decided.requirement_of(call)
            decision = protected_decision(landing.scheme)
            call.gate_facts = gate_facts(needed, landing, decision)
            text = denial.protected_text(decision.denial_id, landing.scheme)
            return await self._deny_and_park(call, effects, needed, landing, decision, text)
        if policy is None:
            call.gate_facts = attrs.evolve(facts, host=host_text(landing))
            return result
        decision = policy.decide(landing)
        call.gate_facts = gate_facts(policy.requirement, landing, decision)
        if decision.verdict != "deny":
            return result
        text = denial.landing_text(decision.denial_id, host_text(landing))
        return await self._deny_and_park(call, effects, policy.requirement, landing, decision, text)

    async def _check_moved_on(
        self,
        call: CallState,
        effects: Effects,
        result: ToolResult,
        policy: CallPolicy,
        seen: ResultFacts,
    ) -> ToolResult:
        """A call allowed on one page may leave the tab on another (a click on a link, a form
        sent, the page's own script): what it answers about that page (a receipt's URL and
        title, a screenshot, text waited for) is that page's. Judged like a navigation's
        landing: a page this call could not have been made on is withheld and parked."""
        facts = call.gate_facts
        assert facts is not None
        if seen.page_url is None:
            landing = await self.parts.tabs.read(call, tab_id_argument(call.arguments))
        else:
            landing = resolve_url(seen.page_url)
        # Where the tab is, then where it is on its way to (a link followed whose server has
        # not answered yet): parking the tab stops a denied navigation before it lands.
        places = [(landing, False)]
        if seen.pending_url is not None:
            places.append((resolve_url(seen.pending_url), True))
        for where, arriving in places:
            if not isinstance(where, Host | Blank) or host_text(where) == facts.host:
                continue
            decision = policy.decide(where)
            if decision.verdict != "deny":
                continue
            call.gate_facts = gate_facts(policy.requirement, where, decision)
            text = denial.moved_on_text(
                decision.denial_id, call.spec.name, host_text(where), arriving=arriving
            )
            needed = policy.requirement
            return await self._deny_and_park(call, effects, needed, where, decision, text)
        return result

    async def _deny_and_park(
        self,
        call: CallState,
        effects: Effects,
        needed: Requirement,
        landing: HostResolution,
        decision: Decision,
        text: str,
    ) -> ToolResult:
        """A tab left on a page the call may not see: count the denial, move the tab to
        about:blank, and answer ``text`` in place of whatever the call found there."""
        self.parts.switchboard.count_denial(call, landing, needed, decision)
        if not await self.parts.tabs.park(call, effects):
            text += " (Moving the tab away failed; check it before doing anything else.)"
        return ToolResult.text(text, kind="denied")
