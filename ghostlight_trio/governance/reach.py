"""What a running call may reach besides its page: embedded frames, and what a recording sees.

A call was judged by its page's host; a frame of another site inside that page is not that
page, so a click landing there, or typing going there, is judged as if the call were made on
that site (``denied_at``). The words of a frame or a dialog of a site the workspace may not
read are withheld (``closed_at``), and a recording takes no frame of a page the policy closes to
its workspace (``may_see``).
"""

from __future__ import annotations

import attrs

from ..engine.call import CallState
from ..engine.contracts import WorkspaceId
from . import denial
from .decision import Authorizer, GateParts
from .hosts import Host, Indeterminate, resolve_url
from .policy import protected_decision
from .verdicts import denial_text, gate_facts, is_protected, reading

_SEEING = ""
"""The tool a look at the page is judged as: any, for only whether it may read counts."""


@attrs.frozen
class Reach:
    parts: GateParts
    decided: Authorizer

    def denied_at(self, call: CallState, url: str) -> str | None:
        """The denial for reaching a document at ``url`` from this call (a click landing in,
        or typing going to, an embedded frame of another site), judged with the call's own
        requirement as if the call were made on that site; None when it may go on."""
        policy = self.decided.policy_of(call)
        where = resolve_url(url)
        if is_protected(where):
            # Another extension's page, the browser's own, a file: in every mode.
            needed = self.decided.requirement_of(call)
            decision = protected_decision(where.scheme)
            call.gate_facts = gate_facts(needed, where, decision)
            self.parts.switchboard.count_denial(call, where, needed, decision)
            return (
                f"Nothing was sent: the point is inside an embedded frame showing a {where.scheme}:"
                " page. " + denial.protected_text(decision.denial_id, where.scheme)
            )
        if policy is None or not isinstance(where, Host | Indeterminate):
            return None
        facts = call.gate_facts
        if isinstance(where, Host) and facts is not None and facts.host == where.name:
            return None
        decision = policy.decide(where)
        if decision.verdict != "deny":
            return None
        call.gate_facts = gate_facts(policy.requirement, where, decision)
        self.parts.switchboard.count_denial(call, where, policy.requirement, decision)
        named = where.name if isinstance(where, Host) else "an address that could not be read"
        return (
            f"Nothing was sent: the point is inside an embedded frame of {named}. "
            + denial_text(decision, policy.requirement, where)
        )

    def closed_at(self, call: CallState, url: str) -> str | None:
        """The host (or ``<scheme>:``) of a document at ``url`` whose words this workspace may
        not read under the policy now (never-touch first, then the tiers, as a read); a
        protected page in every mode. Decides nothing about the call and counts nothing."""
        where = resolve_url(url)
        if is_protected(where):
            return f"{where.scheme}:"
        policy = reading(self.parts.governor.state, call.spec.name)
        if policy is None or not isinstance(where, Host):
            return None
        return where.name if policy.decide(where).verdict == "deny" else None

    async def may_see(self, workspace: WorkspaceId | None, tab: int) -> bool:
        """Whether ``workspace`` may see the tab's page as it is now, as a screenshot of it
        needs: a frame recorded after a call is never one of a page the policy closes to it
        (where a link took the tab after the call had answered). A tab that cannot be read
        counts as closed."""
        seeing = reading(self.parts.governor.state, _SEEING)
        if seeing is None:
            return True
        url = None if workspace is None else await self.parts.tabs.read_url(workspace, tab)
        if url is None:
            return False
        return seeing.decide(resolve_url(url)).verdict != "deny"
