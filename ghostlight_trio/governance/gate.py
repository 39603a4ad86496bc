"""The governance gate the engine runs every call through (``engine.gate.CallGate``).

Order for one call: hold / kill switch / attention (before it can queue, and again once leased),
then — with the lease held, so nothing else can move the tab — the call's host is read from the
live tab (``tab_info``) or from the navigate target, the never-touch list is checked (always, in
every mode) and then the policy tiers. After ``navigate`` the landing is checked again and a
denied landing is parked on ``about:blank``. All-open with an empty never-touch list reads no
host at all.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable, Collection, Hashable, Sequence
from typing import Any
from urllib.parse import urlsplit

import attrs
import trio

from ..browser.errors import BrowserFailure
from ..catalog.registry import SERVICE_LOCAL_CLASS
from ..engine.call import CallState
from ..engine.contracts import Effects, ToolResult, WorkspaceId
from ..engine.gate import GateFacts, GateStop
from ..engine.resources import tab_id_argument
from ..tools.browser_context import normalize_url
from ..transport.bridge import TextBlock
from . import denial, texts
from .directory import Requirement, action_of, requirement
from .governor import ALWAYS_ADVERTISED, Governor
from .hosts import Blank, Host, HostPattern, HostResolution, Indeterminate, OutOfScope, resolve_url
from .network_fence import fenced_patterns
from .policy import (
    ALL_OPEN,
    PROTECTED_PAGE,
    PROTECTED_SCHEMES,
    Decision,
    TierPolicy,
    combine,
    protected_decision,
    sacred_decision,
    sacred_match,
)

log = logging.getLogger("ghostlight.governance")

TabProbe = Callable[[WorkspaceId, int], Awaitable[str]]
"""The live URL of a tab, read from the browser (never from arguments)."""
TabPark = Callable[[WorkspaceId, int], Awaitable[None]]
"""Move a tab to about:blank."""
TabFence = Callable[[WorkspaceId, int, tuple[str, ...]], Awaitable[None]]
"""Have the browser block the tab's requests to URLs matching these patterns (none: unblock)."""
_FENCED_LIMIT = 4096
HeldPages = Callable[[WorkspaceId, int], Sequence[str]]
"""The URLs of the pages what the service holds for a workspace's tab shows, oldest first."""

_NOT_PAUSED = (SERVICE_LOCAL_CLASS, "composition")
"""What a paused workspace still runs: service-local tools, and compositions, whose every
step meets the pause itself (so a dry run still says what would be refused)."""
_MEMO_LIMIT = 512


@attrs.frozen
class _CallPolicy:
    """What ``authorize`` decided against, kept for the landing re-check."""

    tiers: tuple[tuple[str, TierPolicy], ...]
    sacred: tuple[HostPattern, ...]
    requirement: Requirement

    def decide(self, where: HostResolution) -> Decision:
        """This call's requirement judged at ``where``: never-touch first, then the tiers."""
        pattern = sacred_match(self.sacred, where)
        if pattern is not None:
            return sacred_decision(pattern)
        if self.tiers:
            return combine(self.tiers, self.requirement, where)
        return ALL_OPEN


def host_text(where: HostResolution | None) -> str | None:
    """How audit names a resolution: the host, ``about:blank``, ``<scheme>:`` or nothing."""
    if isinstance(where, Host):
        return where.name
    if isinstance(where, Blank):
        return "about:blank"
    if isinstance(where, OutOfScope):
        return f"{where.scheme}:"
    return None


class GovernanceGate:
    def __init__(
        self,
        governor: Governor,
        *,
        probe: TabProbe | None = None,
        park: TabPark | None = None,
        fence: TabFence | None = None,
        clock: Callable[[], float] = trio.current_time,
    ) -> None:
        self._governor = governor
        self._probe = probe
        self._park = park
        self._fence = fence
        self._fence_state: object = None
        self._fence_patterns: tuple[str, ...] = ()
        self._fenced: dict[tuple[WorkspaceId, int], tuple[str, ...]] = {}
        """The patterns each tab was last fenced with (oldest first, bounded)."""
        self._clock = clock
        self._active: set[CallState] = set()
        self._stopped: dict[CallState, str] = {}
        self._policies: dict[CallState, _CallPolicy] = {}
        self._held_since: float | None = None
        self._memo_tiers: object = None
        self._memo: dict[Requirement, tuple[Decision, GateFacts]] = {}
        self.held_pages: HeldPages | None = None
        """Set by the service: the pages what it holds for a tab shows (a recording's frames)."""
        governor.listeners.append(self._switched)

    # --- the switches ------------------------------------------------------------------------

    def _switched(self, what: str) -> None:
        """Hold retires queued work; the kill switch stops all work (dispatched effects drain)."""
        if what == "hold":
            self._held_since = self._clock()
            for call in list(self._active):
                if _queued(call) and not _exempt(call):
                    self._stop(call, "hold")
        elif what == "panic":
            for call in list(self._active):
                if not _exempt(call):
                    self._stop(call, "panic")
        elif what == "resume":
            self._held_since = None

    def _stop(self, call: CallState, reason: str) -> None:
        self._stopped.setdefault(call, reason)
        call.cancel("cancelled")

    def _switch_stop(self, call: CallState) -> GateStop | None:
        governor = self._governor
        if _exempt(call):
            return None
        reason = None
        if governor.panicked:
            reason, text = "panic", texts.PANICKED
        elif governor.held:
            reason, text = "hold", self._held_text()
        elif call.spec.scheduling_class not in _NOT_PAUSED and governor.attention.is_open(
            call.context.workspace_id
        ):
            reason = "attention"
            carried = governor.attention.was_carried(call.context.workspace_id)
            text = texts.ATTENTION_CARRIED if carried else texts.ATTENTION
        if reason is None:
            return None
        call.gate_facts = GateFacts(
            action=action_of(call.spec, call.arguments), decision="held", rule=reason
        )
        return GateStop("held", text)

    def _held_text(self) -> str:
        since = self._held_since
        if since is not None and self._clock() - since >= texts.HOLD_HINT_AFTER:
            return texts.HELD_LONG
        return texts.HELD

    # --- the engine's calls ------------------------------------------------------------------

    def begin(self, call: CallState) -> GateStop | None:
        self._active.add(call)
        return self._switch_stop(call)

    def minted(
        self, workspace: WorkspaceId, kin: Collection[WorkspaceId], *, replacing: bool = False
    ) -> None:
        """A paused client stays paused in the workspaces it mints afterwards. One minted in
        place of a workspace the service no longer knows is excused its first tries with the
        tab ids it held there."""
        governor = self._governor
        if replacing:
            governor.attention.excuse(workspace)
        if governor.attention.carry(workspace, kin):
            name = governor.name_of(workspace)
            log.warning("workspace %s starts paused: its client's connection holds a paused one", name)
            governor.event("attention_carried", workspace=name)

    def end(self, call: CallState) -> None:
        self._active.discard(call)
        self._stopped.pop(call, None)
        self._policies.pop(call, None)

    def stopped(self, call: CallState) -> GateStop | None:
        reason = self._stopped.get(call)
        if reason is None:
            return None
        facts = call.gate_facts or GateFacts(action=action_of(call.spec, call.arguments))
        if call.may_have_started:
            call.gate_facts = attrs.evolve(facts, rule=reason)
            after = texts.PANICKED_AFTER_DISPATCH if reason == "panic" else texts.HOLD_AFTER_DISPATCH
            return GateStop("cancelled", after)
        call.gate_facts = attrs.evolve(facts, decision="held", rule=reason)
        text = {"panic": texts.PANICKED, "hold": texts.HELD, "attention": texts.ATTENTION}[reason]
        return GateStop("held", text)

    async def authorize(self, call: CallState) -> GateStop | None:
        stop = await self._authorize(call)
        # Not for a tab that left (never reached again) nor a call that runs in the service only.
        if stop is None and not call.tab_left and call.spec.scheduling_class != SERVICE_LOCAL_CLASS:
            await self._fence_tab(call)
        return stop

    async def _fence_tab(self, call: CallState) -> None:
        """Before a call acts on its tab: the tab's requests to the hosts the user closed
        (never-touch, enforced deny lists) are blocked by the browser (``network_fence``), so
        script the page runs cannot reach them either. Sent once per tab and policy; a tab the
        browser will not fence (no debugger session there) is logged and fenced at its next
        call."""
        workspace = call.context.workspace_id
        tab = tab_id_argument(call.arguments) if "tabId" in call.arguments else None
        fence = self._fence
        if fence is None or workspace is None or tab is None:
            return
        state = self._governor.state
        if state is not self._fence_state:
            self._fence_state = state
            self._fence_patterns = fenced_patterns(state.tiers, state.sacred)
        patterns = self._fence_patterns
        key = (workspace, tab)
        if self._fenced.get(key, ()) == patterns:
            return
        try:
            await fence(workspace, tab, patterns)
        except BrowserFailure as failure:
            log.warning("could not fence tab %s off the closed hosts: %s", tab, failure)
            return
        self._fenced.pop(key, None)
        self._fenced[key] = patterns
        while len(self._fenced) > _FENCED_LIMIT:
            del self._fenced[next(iter(self._fenced))]

    async def _authorize(self, call: CallState) -> GateStop | None:
        stop = self._switch_stop(call)
        if stop is not None:
            return stop
        spec, arguments = call.spec, call.arguments
        state = self._governor.state
        tiers, sacred = state.tiers, state.sacred
        raw_restriction = call.context.restriction
        if raw_restriction is not None and not _exempt(call):
            restriction = self._governor.restriction(raw_restriction)
            if restriction.tier is None:
                return self._deny_invalid_restriction(call, restriction.hash)
            tiers = (*tiers, ("restriction", restriction.tier))
            if restriction.sacred:
                sacred = (*sacred, *restriction.sacred)
        navigating = spec.name == "navigate"
        needed = requirement(spec, arguments)
        if call.tab_left:
            return self._judge_held(call, tiers, sacred, needed)
        if not tiers and not sacred:  # all-open: nothing to read, only the facts to record
            if not navigating:
                return self._hostless(call, tiers, needed)
            target = _target(arguments)
            if isinstance(target, OutOfScope) and target.scheme in PROTECTED_SCHEMES:
                return self._deny_protected(call, needed, target)
            call.gate_facts = GateFacts(
                action=needed.action, host=host_text(target), decision="allow", rule="all_open"
            )
            return None
        tab = tab_id_argument(arguments) if "tabId" in arguments else None
        where: HostResolution | None = None
        if navigating:
            self._policies[call] = _CallPolicy(tiers, sacred, needed)
            where = _target(arguments)
            if where is None:  # back/forward: judged by the page now, then by the landing
                where = await self._read_tab(call, tab)
        elif tab is not None and (sacred or (tiers and needed.needs)):
            where = await self._read_tab(call, tab)
            self._policies[call] = _CallPolicy(tiers, sacred, needed)
        elif raw_restriction is None:
            return self._hostless(call, tiers, needed)
        if navigating and isinstance(where, OutOfScope) and where.scheme in PROTECTED_SCHEMES:
            return self._deny_protected(call, needed, where)
        pattern = sacred_match(sacred, where)
        if pattern is not None:
            decision = sacred_decision(pattern)
        elif tiers:
            domain = where if (navigating or tab is not None) else None
            decision = combine(tiers, needed, domain)
        else:
            decision = ALL_OPEN
        return self._decided(call, needed, where, decision)

    def _decided(
        self, call: CallState, needed: Requirement, where: HostResolution | None, decision: Decision
    ) -> GateStop | None:
        """Record the decision for the audit; a denial is counted and answered."""
        call.gate_facts = _facts(needed, where, decision)
        if decision.verdict != "deny":
            return None
        self._count_denial(call, where, needed, decision)
        return GateStop("denied", _denial_text(decision, needed, where))

    def _deny_protected(
        self, call: CallState, needed: Requirement, where: OutOfScope
    ) -> GateStop:
        decision = protected_decision(where.scheme)
        call.gate_facts = _facts(needed, where, decision)
        self._count_denial(call, where, needed, decision)
        return GateStop("denied", denial.protected_text(decision.denial_id, where.scheme))

    def _hostless(
        self, call: CallState, tiers: tuple[tuple[str, TierPolicy], ...], needed: Requirement
    ) -> GateStop | None:
        """A call judged without a host (no tab, not navigating, or all-open) under the
        governor's own tiers: its decision depends on the requirement alone, so it is computed
        once per requirement and policy generation (a reload replaces the tiers and empties the
        memo)."""
        if tiers is not self._memo_tiers or len(self._memo) >= _MEMO_LIMIT:
            self._memo_tiers, self._memo = tiers, {}
        known = self._memo.get(needed)
        if known is None:
            decision = combine(tiers, needed, None) if tiers else ALL_OPEN
            known = self._memo[needed] = (decision, _facts(needed, None, decision))
        decision, call.gate_facts = known
        if decision.verdict != "deny":
            return None
        self._count_denial(call, None, needed, decision)
        return GateStop("denied", _denial_text(decision, needed, None))

    def _judge_held(
        self,
        call: CallState,
        tiers: tuple[tuple[str, TierPolicy], ...],
        sacred: tuple[HostPattern, ...],
        needed: Requirement,
    ) -> GateStop | None:
        """A call on what the service holds for a tab that has left the workspace (a
        recording, exported or looked at after its tab closed): the tab is never read, for it
        may be another workspace's by now. What the call needs is judged at each page the held
        state shows (the recording's frames), never-touch first and then the tiers; with no
        such page, or when it needs nothing of a page, it is judged without a host."""
        workspace, tab = call.context.workspace_id, tab_id_argument(call.arguments)
        pages = self.held_pages
        urls = (
            pages(workspace, tab)
            if needed.needs and pages is not None and workspace is not None and tab is not None
            else ()
        )
        places = list(dict.fromkeys(resolve_url(url) for url in urls))
        if not places:
            return self._hostless(call, tiers, needed)
        policy = _CallPolicy(tiers, sacred, needed)
        judged = [(where, policy.decide(where)) for where in places]
        # The first page that denies decides; else the first only observed as denied; else
        # the last page, where the recording ended.
        denied = [pair for pair in judged if pair[1].verdict == "deny"]
        observed = [pair for pair in judged if pair[1].verdict == "shadow_deny"]
        where, decision = (denied or observed or judged[-1:])[0]
        return self._decided(call, needed, where, decision)

    async def after(self, call: CallState, effects: Effects, result: ToolResult) -> ToolResult:
        facts = call.gate_facts
        if facts is not None and result.kind == "denied" and facts.decision != "deny":
            return self._refused_by_browser(call, facts, result)
        if facts is None or result.kind != "ok":
            return result
        structured = result.structured or {}
        if call.spec.name == "navigate" and isinstance(structured.get("url"), str):
            if structured.get("pendingUrl") or structured.get("noPage"):
                # Nothing landed yet (the server has not answered), or nothing will (a
                # download): the tab still shows the page it had, and the record keeps the
                # host the call was decided on, so a replay judges what was asked for.
                return result
            return await self._check_landing(call, effects, result, resolve_url(structured["url"]))
        if call in self._policies:
            return await self._check_moved_on(call, effects, result)
        unseeable = self._closed_page(call, structured)
        if unseeable is not None:
            policy, where, decision = unseeable
            call.gate_facts = _facts(policy.requirement, where, decision)
            text = denial.closed_page_text(decision.denial_id, call.spec.name, where.name)
            return await self._deny_and_park(call, effects, policy, where, decision, text)
        if isinstance(structured.get("tabs"), list):
            result = self._withhold_listed(call, result)
        if facts.host is None:
            page = structured.get("page")
            origin = page.get("origin") if isinstance(page, dict) else None
            if isinstance(origin, str):
                call.gate_facts = attrs.evolve(facts, host=host_text(resolve_url(origin)))
        return result

    def _requirement(self, call: CallState) -> Requirement:
        """What the call needs, as its policy was judged (or, all-open, as the catalog says)."""
        policy = self._policies.get(call)
        return policy.requirement if policy is not None else requirement(call.spec, call.arguments)

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
        self._count_denial(call, None, self._requirement(call), decision)
        said = " ".join(block.text for block in result.content if isinstance(block, TextBlock))
        return ToolResult.text(denial.protected_page_text(decision.denial_id, said), kind="denied")

    async def may_see(self, workspace: WorkspaceId | None, tab: int) -> bool:
        """Whether ``workspace`` may see the tab's page as it is now, as a screenshot of it
        needs: a frame recorded after a call is never one of a page the policy closes to it
        (where a link took the tab after the call had answered). A tab that cannot be read
        counts as closed."""
        seeing = self._reading("gif_creator")
        if seeing is None:
            return True
        if self._probe is None or workspace is None:
            return False
        try:
            where = resolve_url(await self._probe(workspace, tab))
        except BrowserFailure:
            return False
        return seeing.decide(where).verdict != "deny"

    def _reading(self, tool: str, action: str | None = None) -> _CallPolicy | None:
        """Reading a page with ``tool``, judged under the policy now (never-touch first, then
        the tiers); None when all is open."""
        state = self._governor.state
        if not state.tiers and not state.sacred:
            return None
        return _CallPolicy(state.tiers, state.sacred, Requirement(tool, action, _READ))

    # --- helpers -----------------------------------------------------------------------------

    def _closed_page(
        self, call: CallState, structured: dict[str, Any]
    ) -> tuple[_CallPolicy, Host, Decision] | None:
        """A call that needs nothing of a page (focusing a tab, say) still answers for what
        the tab shows. When that is a page this workspace may not read (a navigation an
        earlier call set off, landed after it answered), the policy, host and denial that
        close it; else None."""
        url = _page_url(structured)
        policy = self._reading(call.spec.name, action_of(call.spec, call.arguments))
        if policy is None or url is None or tab_id_argument(call.arguments) is None:
            return None
        where = resolve_url(url)
        if not isinstance(where, Host):
            return None
        decision = policy.decide(where)
        return (policy, where, decision) if decision.verdict == "deny" else None

    async def _check_landing(
        self, call: CallState, effects: Effects, result: ToolResult, landing: HostResolution
    ) -> ToolResult:
        facts = call.gate_facts
        assert facts is not None
        policy = self._policies.get(call)
        if isinstance(landing, OutOfScope) and landing.scheme in PROTECTED_SCHEMES:
            # Reached by a redirect or through history: refused in every mode, as asked for.
            needed = self._requirement(call)
            decision = protected_decision(landing.scheme)
            call.gate_facts = _facts(needed, landing, decision)
            text = denial.protected_text(decision.denial_id, landing.scheme)
            return await self._deny_and_park(
                call, effects, _CallPolicy((), (), needed), landing, decision, text
            )
        if policy is None:
            call.gate_facts = attrs.evolve(facts, host=host_text(landing))
            return result
        decision = policy.decide(landing)
        call.gate_facts = _facts(policy.requirement, landing, decision)
        if decision.verdict != "deny":
            return result
        text = denial.landing_text(decision.denial_id, host_text(landing))
        return await self._deny_and_park(call, effects, policy, landing, decision, text)

    async def _check_moved_on(
        self, call: CallState, effects: Effects, result: ToolResult
    ) -> ToolResult:
        """A call allowed on one page may leave the tab on another (a click on a link, a form
        sent, the page's own script): what it answers about that page (a receipt's URL and
        title, a screenshot, text waited for) is that page's. Judged like a navigation's
        landing: a page this call could not have been made on is withheld and parked."""
        facts = call.gate_facts
        policy = self._policies[call]
        assert facts is not None
        structured = result.structured or {}
        url = _page_url(structured)
        if url is None:
            tab = tab_id_argument(call.arguments)
            landing = await self._read_tab(call, tab)
        else:
            landing = resolve_url(url)
        # Where the tab is, then where it is on its way to (a link followed whose server has
        # not answered yet): parking the tab stops a denied navigation before it lands.
        places = [(landing, False)]
        pending = _pending_url(structured)
        if pending:
            places.append((resolve_url(pending), True))
        for where, arriving in places:
            if not isinstance(where, Host | Blank) or host_text(where) == facts.host:
                continue
            decision = policy.decide(where)
            if decision.verdict != "deny":
                continue
            call.gate_facts = _facts(policy.requirement, where, decision)
            text = denial.moved_on_text(
                decision.denial_id, call.spec.name, host_text(where), arriving=arriving
            )
            return await self._deny_and_park(call, effects, policy, where, decision, text)
        return result

    async def _deny_and_park(
        self,
        call: CallState,
        effects: Effects,
        policy: _CallPolicy,
        landing: HostResolution,
        decision: Decision,
        text: str,
    ) -> ToolResult:
        """A tab left on a page the call may not see: count the denial, move the tab to
        about:blank, and answer ``text`` in place of whatever the call found there."""
        self._count_denial(call, landing, policy.requirement, decision)
        if not await self._park_tab(call, effects):
            text += " (Moving the tab away failed; check it before doing anything else.)"
        return ToolResult.text(text, kind="denied")

    def denied_at(self, call: CallState, url: str) -> str | None:
        """The denial for reaching a document at ``url`` from this call (a click landing in,
        or typing going to, an embedded frame of another site), judged with the call's own
        requirement as if the call were made on that site; None when it may go on."""
        policy = self._policies.get(call)
        where = resolve_url(url)
        if isinstance(where, OutOfScope) and where.scheme in PROTECTED_SCHEMES:
            # Another extension's page, the browser's own, a file: in every mode.
            needed = self._requirement(call)
            decision = protected_decision(where.scheme)
            call.gate_facts = _facts(needed, where, decision)
            self._count_denial(call, where, needed, decision)
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
        call.gate_facts = _facts(policy.requirement, where, decision)
        self._count_denial(call, where, policy.requirement, decision)
        named = where.name if isinstance(where, Host) else "an address that could not be read"
        return (
            f"Nothing was sent: the point is inside an embedded frame of {named}. "
            + _denial_text(decision, policy.requirement, where)
        )

    def closed_at(self, call: CallState, url: str) -> str | None:
        """The host (or ``<scheme>:``) of a document at ``url`` whose words this workspace may
        not read under the policy now (never-touch first, then the tiers, as a read); a
        protected page in every mode. Decides nothing about the call and counts nothing."""
        where = resolve_url(url)
        if isinstance(where, OutOfScope) and where.scheme in PROTECTED_SCHEMES:
            return f"{where.scheme}:"
        reading = self._reading(call.spec.name)
        if reading is None or not isinstance(where, Host):
            return None
        return where.name if reading.decide(where).verdict == "deny" else None

    def _withhold_listed(self, call: CallState, result: ToolResult) -> ToolResult:
        """A tab listing names each tab's URL and title: page content. A tab on a site this
        workspace may not read (never-touch, or denied read) is listed by its origin only."""
        reading = self._reading(call.spec.name)
        if reading is None:
            return result
        structured = dict(result.structured or {})
        replaced: list[tuple[str, str]] = []
        tabs = []
        for tab in structured["tabs"]:
            where = resolve_url(str(tab.get("url", ""))) if isinstance(tab, dict) else None
            closed = isinstance(where, Host) and reading.decide(where).verdict == "deny"
            if not closed or not isinstance(where, Host):
                tabs.append(tab)
                continue
            title = f"(withheld: {where.name} may not be read under the policy)"
            shown = {**tab, "url": f"{urlsplit(tab['url']).scheme}://{where.name}/", "title": title}
            replaced += [(json.dumps(tab["url"], ensure_ascii=False), json.dumps(shown["url"])),
                         (json.dumps(tab["title"], ensure_ascii=False), json.dumps(title))]  # fmt: skip
            tabs.append(shown)
        if not replaced:
            return result
        structured["tabs"] = tabs
        content = []
        for block in result.content:
            if isinstance(block, TextBlock):
                text = block.text
                for old, new in replaced:
                    text = text.replace(old, new)
                block = TextBlock(text=text)
            content.append(block)
        return attrs.evolve(result, content=content, structured=structured)

    async def _park_tab(self, call: CallState, effects: Effects) -> bool:
        workspace = call.context.workspace_id
        tab = tab_id_argument(call.arguments)
        park = self._park
        if park is None or workspace is None or tab is None:
            return False

        async def to_blank() -> None:
            await park(workspace, tab)

        try:
            await effects.atomic(to_blank)
        except BrowserFailure as failure:
            log.warning("parking a denied landing failed: %s", failure)
            return False
        return True

    async def _read_tab(self, call: CallState, tab: int | None) -> HostResolution:
        workspace = call.context.workspace_id
        if self._probe is None or workspace is None or tab is None:
            return Indeterminate("no live tab to read")
        try:
            url = await self._probe(workspace, tab)
        except BrowserFailure as failure:
            log.info("could not read the tab's URL: %s", failure)
            return Indeterminate("tab unreadable")
        return resolve_url(url)

    def _deny_invalid_restriction(self, call: CallState, digest: str) -> GateStop:
        decision = Decision("deny", "restriction_invalid", tier="restriction", manifest_hash=digest)
        needed = requirement(call.spec, call.arguments)
        call.gate_facts = _facts(needed, None, decision)
        return GateStop("denied", _denial_text(decision, needed, None))

    def unowned_tab(self, call: CallState) -> None:
        """A tab outside the workspace is a denial like any other, and repeated it pauses the
        workspace: a client sweeping tab ids for other clients' tabs is stopped for the user
        to see. Unknown, closed and other workspaces' tabs all count the same, so neither the
        answer nor the pause tells a client whose a tab is. A replacement workspace's first
        few are not counted (see ``attention``): whichever tab they name, so that too tells
        nothing."""
        if not self._governor.attention.excused(call.context.workspace_id):
            self._count(call, _UNOWNED_TAB_SIGNATURE)

    def _count_denial(
        self, call: CallState, where: HostResolution | None, needed: Requirement, decision: Decision
    ) -> None:
        category = "sacred" if decision.tier == "sacred" else "policy"
        self._count(call, (host_text(where), needed.needs, category))

    def _count(self, call: CallState, signature: Hashable) -> None:
        workspace = call.context.workspace_id
        governor = self._governor
        if governor.attention.record(workspace, signature, self._clock()):
            name = governor.name_of(workspace)
            log.warning("repeated denials paused workspace %s (ghostlight resume --workspace %s)", name, name)
            governor.event("attention_opened", workspace=name)
            for other in list(self._active):
                if (
                    other is not call
                    and other.context.workspace_id == workspace
                    and _queued(other)
                    and other.spec.scheduling_class not in _NOT_PAUSED
                ):
                    self._stop(other, "attention")


_UNOWNED_TAB_SIGNATURE = ("", (), "unowned_tab")


def _exempt(call: CallState) -> bool:
    return call.spec.name in ALWAYS_ADVERTISED


def _queued(call: CallState) -> bool:
    request = call.lease_request
    return not call.handler_started and (request is None or not request.granted)


def _target(arguments: Any) -> HostResolution | None:
    """The navigate target as the browser will load it; None for back/forward or a non-URL."""
    url = normalize_url(str(arguments.get("url", "")))
    if url is None or url in ("back", "forward"):
        return None
    return resolve_url(url)


def _facts(needed: Requirement, where: HostResolution | None, decision: Decision) -> GateFacts:
    return GateFacts(
        action=needed.action,
        host=host_text(where),
        decision=decision.verdict,
        rule=decision.rule,
        grant=decision.grant,
        denial_id=decision.denial_id,
        manifest=decision.manifest,
    )


def _denial_text(decision: Decision, needed: Requirement, where: HostResolution | None) -> str:
    host = host_text(where)
    if decision.tier == "sacred":
        return denial.sacred_text(decision.denial_id, host or "this site")
    return denial.policy_text(
        decision.denial_id,
        needed.label,
        host,
        decision.rule,
        decision.grant,
        list(decision.missing),
        decision.tier,
    )


_READ = frozenset({"read"})


def _pending_url(structured: dict[str, Any]) -> str | None:
    """The URL a result's action set the tab going to, when it had not landed yet."""
    receipt = structured.get("interactionReceipt")
    observed = receipt.get("observedAfter") if isinstance(receipt, dict) else None
    pending = observed.get("navigationPending") if isinstance(observed, dict) else None
    return pending if isinstance(pending, str) and pending else None


def _page_url(structured: dict[str, Any]) -> str | None:
    """The URL of the page a result describes (its page facts, or its receipt's)."""
    for holder in (structured, structured.get("interactionReceipt")):
        page = holder.get("page") if isinstance(holder, dict) else None
        url = page.get("url") if isinstance(page, dict) else None
        if isinstance(url, str) and url:
            return url
    return None
