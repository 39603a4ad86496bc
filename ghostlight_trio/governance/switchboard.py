"""The switches as they reach calls: hold, the kill switch and a paused workspace.

Hold retires queued work, the kill switch stops all work (a dispatched effect drains), and a
workspace whose denials repeat is paused (``attention``): its queued calls stop and its next
ones are refused until the user resumes it. A call is stopped before it can queue and again
once it holds its lease; the tool the catalog marks ``always_open`` (the policy's own
explanation) is never stopped.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection, Hashable

import attrs
import trio

from ..catalog.registry import SERVICE_LOCAL_CLASS
from ..engine.call import CallState
from ..engine.contracts import WorkspaceId
from ..engine.gate import GateFacts, GateStop
from . import texts
from .directory import Requirement, action_of
from .governor import Governor
from .hosts import HostResolution
from .policy import NEVER_TOUCH_TIER, Decision
from .verdicts import host_text

log = logging.getLogger("ghostlight.governance")

_NOT_PAUSED = (SERVICE_LOCAL_CLASS, "composition")
"""What a paused workspace still runs: service-local tools, and compositions, whose every
step meets the pause itself (so a dry run still says what would be refused)."""
_UNOWNED_TAB_SIGNATURE = ("", (), "unowned_tab")
_STOPPED_TEXTS = {"panic": texts.PANICKED, "hold": texts.HELD, "attention": texts.ATTENTION}


def exempt(call: CallState) -> bool:
    """The policy's own explanation runs under every switch and policy."""
    return call.spec.governance.always_open


def _queued(call: CallState) -> bool:
    request = call.lease_request
    return not call.handler_started and (request is None or not request.granted)


class Switchboard:
    """Which calls are running, which the switches stopped, and the count of denials that
    pauses a workspace."""

    def __init__(self, governor: Governor, clock: Callable[[], float] = trio.current_time) -> None:
        self._governor = governor
        self._clock = clock
        self._active: set[CallState] = set()
        self._stopped: dict[CallState, str] = {}
        self._held_since: float | None = None
        governor.listeners.append(self._switched)

    def _switched(self, what: str) -> None:
        """Hold retires queued work; the kill switch stops all work (dispatched effects drain)."""
        if what == "hold":
            self._held_since = self._clock()
            for call in list(self._active):
                if _queued(call) and not exempt(call):
                    self._stop(call, "hold")
        elif what == "panic":
            for call in list(self._active):
                if not exempt(call):
                    self._stop(call, "panic")
        elif what == "resume":
            self._held_since = None

    def _stop(self, call: CallState, reason: str) -> None:
        self._stopped.setdefault(call, reason)
        call.cancel("cancelled")

    def check(self, call: CallState) -> GateStop | None:
        """The switch or pause that stops ``call`` now, if any (recorded as held)."""
        governor = self._governor
        if exempt(call):
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

    def begin(self, call: CallState) -> GateStop | None:
        self._active.add(call)
        return self.check(call)

    def end(self, call: CallState) -> None:
        self._active.discard(call)
        self._stopped.pop(call, None)

    def stopped(self, call: CallState) -> GateStop | None:
        """How a call a switch cancelled is answered and recorded: held when it had not
        started, cancelled (it may have acted) when it had."""
        reason = self._stopped.get(call)
        if reason is None:
            return None
        facts = call.gate_facts or GateFacts(action=action_of(call.spec, call.arguments))
        if call.may_have_started:
            call.gate_facts = attrs.evolve(facts, rule=reason)
            after = texts.PANICKED_AFTER_DISPATCH if reason == "panic" else texts.HOLD_AFTER_DISPATCH
            return GateStop("cancelled", after)
        call.gate_facts = attrs.evolve(facts, decision="held", rule=reason)
        return GateStop("held", _STOPPED_TEXTS[reason])

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

    def unowned_tab(self, call: CallState) -> None:
        """A tab outside the workspace is a denial like any other, and repeated it pauses the
        workspace: a client sweeping tab ids for other clients' tabs is stopped for the user
        to see. Unknown, closed and other workspaces' tabs all count the same, so neither the
        answer nor the pause tells a client whose a tab is. A replacement workspace's first
        few are not counted (see ``attention``): whichever tab they name, so that too tells
        nothing."""
        if not self._governor.attention.excused(call.context.workspace_id):
            self._count(call, _UNOWNED_TAB_SIGNATURE)

    def count_denial(
        self, call: CallState, where: HostResolution | None, needed: Requirement, decision: Decision
    ) -> None:
        """A denial counts towards pausing the call's workspace, by host, needs and kind."""
        category = NEVER_TOUCH_TIER if decision.tier == NEVER_TOUCH_TIER else "policy"
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
