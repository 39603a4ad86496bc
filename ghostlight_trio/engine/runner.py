"""The life of one call, from validation to its terminal record.

Order matters and is fixed here: validate, verify tab ownership (before anything reaches the
browser), lease the resource, run the handler, settle. Settling inside the lease means the lease
is held through the terminal record. The caller gets exactly one Outcome: the real one, or at
the reply deadline ``outcome_unknown`` while this same task keeps settling privately.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Awaitable, Callable, Collection, Mapping
from typing import Any, Protocol

import attrs
import trio

from ..catalog.registry import SERVICE_LOCAL_CLASS, Catalog, ToolSpec
from ..scheduler import SERVICE_LOCAL, Lease, Scheduler, SchedulerRefusal, TabSurface
from ..transport.bridge import ContentBlock, Message, Outcome, Progress, TextBlock
from ..workspace import WorkspaceRegistry
from . import texts
from .audit import AuditHook, AuditRecord, AuditUnavailable, audit_refusal, safe_audit
from .call import CallState
from .contracts import (
    ToolCall,
    ToolHandler,
    ToolResult,
    UncertainEffect,
    WorkContext,
    WorkspaceId,
)
from .effects import CallEffects
from .gate import NOT_EVALUATED, CallGate, GateFacts
from .limits import EngineLimits
from .resources import ResourceResolver, acts_on_held_state, ends_surface, tab_id_argument
from .validation import Check, compile_fast_check

log = logging.getLogger("ghostlight.engine")


class EngineParts(Protocol):
    """The shared parts of the engine a runner runs calls against."""

    catalog: Catalog
    handlers: dict[str, ToolHandler]
    workspaces: WorkspaceRegistry
    scheduler: Scheduler
    audit: AuditHook
    limits: EngineLimits
    resolve_resource: ResourceResolver
    clock: Callable[[], float]
    gate: CallGate
    after_call: tuple[AfterCall, ...]


class CallRunner:
    """Runs calls; shared by every stream of one engine."""

    def __init__(self, parts: EngineParts) -> None:
        self._parts = parts
        audit = parts.audit
        self._audit_dispatch: AuditHook | None = getattr(audit, "dispatched", None)
        self._audit_unwritable: Callable[[], str] | None = getattr(audit, "unwritable", None)
        self._fast_checks: dict[str, Check | None] = {}

    async def run(self, call: CallState) -> None:
        """The call's task body. Whatever happens, it settles exactly once.

        The reply deadline is not a task of its own: the session's deadline watcher calls
        ``reply_deadline_passed`` for calls still unanswered when it comes.
        """
        try:
            with call.scope:
                await self._execute(call)
        except Exception:
            # A fault anywhere in the pipeline ends this call truthfully, never its connection.
            log.exception("call pipeline failed (work %s)", call.context.work_id)
            if not call.settled:
                if call.effects_dispatched:
                    self._settle(call, "outcome_unknown", texts.UNSETTLED)
                else:
                    self._settle(call, "tool_error", texts.internal_failure(call.spec.name))
        finally:
            if not call.settled:
                self._settle_cancelled(call)
            self._parts.gate.end(call)
            # The request names the call as its holder: dropping it here breaks that cycle, so
            # a finished call is freed at once instead of waiting for the cycle collector.
            call.lease_request = None

    # --- pipeline ---------------------------------------------------------------------------

    async def _execute(self, call: CallState) -> None:
        spec, arguments, context = call.spec, call.arguments, call.context
        if spec.scheduling_class != SERVICE_LOCAL_CLASS and (problem := self.audit_problem()):
            # Nothing of a call runs that the trail could not record (see ``engine.audit``).
            call.gate_facts = _AUDIT_UNWRITABLE
            self._settle(call, "held", audit_refusal(problem))
            return
        if call.unfit is not None:
            refused: tuple[str, str] | None = (
                "tool_error",
                texts.unfit_values(spec.name, *call.unfit),
            )
        else:
            refused = self._refusal(spec, arguments, context.workspace_id)
        if _held_state_only(spec, arguments, refused):
            call.tab_left, refused = True, None
        if refused is not None:
            kind, text = refused
            if kind == "denied":
                call.gate_facts = _UNOWNED_TAB
                self._parts.gate.unowned_tab(call)
            elif kind == "left":  # its own tab, gone: no probe of anyone else's
                call.gate_facts = _UNOWNED_TAB
                kind = "denied"
            self._settle(call, kind, text)
            return
        stop = self._parts.gate.begin(call)
        if stop is not None:
            self._settle(call, stop.kind, stop.text)
            return
        # A call on what the service holds for a tab that left waits in no tab's queue: the
        # tab may be another workspace's now, and nothing of the call reaches it.
        resolve = self._parts.resolve_resource
        key = (
            SERVICE_LOCAL
            if call.tab_left
            else resolve(spec, arguments, context.workspace_id) or SERVICE_LOCAL
        )
        request = self._parts.scheduler.lease(
            key,
            producer=call.producer,
            holder=call,
            ends_surface=isinstance(key, TabSurface) and ends_surface(spec, arguments),
        )
        call.lease_request = request
        try:
            async with request as lease:
                # The tab may have left the workspace while the call waited its turn (the user
                # moved it into another group, or closed it): it is no longer this call's.
                gone = None if call.tab_left else self._tab_refusal(arguments, context.workspace_id)
                if _held_state_only(spec, arguments, gone):
                    call.tab_left, gone = True, None
                if gone is not None:  # not counted: the user moved or closed it, not a probe
                    call.gate_facts = _UNOWNED_TAB
                    self._settle(call, "denied", gone[1])
                    return
                # Current authority: decided only once the resource is held.
                stop = await self._parts.gate.authorize(call)
                if stop is not None:
                    self._settle(call, stop.kind, stop.text)
                    return
                await self._invoke(call, lease)
        except SchedulerRefusal as refusal:
            self._settle(call, "tool_error", refusal.message)
        except trio.Cancelled:
            self._settle_cancelled(call)
            raise

    async def _invoke(self, call: CallState, lease: Lease) -> None:
        handler = self._parts.handlers[call.spec.name]
        effects = CallEffects(call, self)
        call.handler_started = True
        try:
            tool_call = ToolCall(call.context, call.arguments, effects)
            result = await handler(tool_call)
            result = await self._parts.gate.after(call, effects, result)
            # A cancel that comes while observers look cannot undo the finished result.
            stopped = call.scope.cancel_called
            if self._parts.after_call and result.kind == "ok" and isinstance(lease.key, TabSurface):
                await self._notify_after(tool_call, result)
        except trio.Cancelled:
            self._quarantine_if_uncertain(call, lease)
            self._settle_cancelled(call)
            raise
        except UncertainEffect as uncertain:
            call.uncertain_proof = call.uncertain_proof or uncertain.proof
            self._quarantine_if_uncertain(call, lease)
            self._settle(call, "outcome_unknown", texts.UNSETTLED)
            return
        except AuditUnavailable as unrecorded:  # its first browser request was never sent
            call.gate_facts = _AUDIT_UNWRITABLE
            kind = "outcome_unknown" if call.effects_dispatched else "held"
            self._settle(call, kind, unrecorded.text)
            return
        except Exception:
            log.exception("tool %s failed (work %s)", call.spec.name, call.context.work_id)
            if call.effects_dispatched:
                self._settle(call, "outcome_unknown", texts.UNSETTLED)
            else:
                self._settle(call, "tool_error", texts.internal_failure(call.spec.name))
            return
        self._quarantine_if_uncertain(call, lease)
        if stopped:
            call.finished_as = result.kind
            self._settle_cancelled(call)
            return
        self._settle_result(call, result)

    async def run_step(
        self,
        parent: CallState,
        tool: str,
        arguments: Mapping[str, Any],
        number: int,
        tab: int | None,
        deadline: float = math.inf,
    ) -> ToolResult:
        """One composed step, run as a call of its own inside the composition's task: the same
        pipeline (validation, tab ownership, governance, its own lease, settling, an audit
        record of its own) with the composition's workspace, restriction and bounds. Its work
        id is the composition's with ``/<number>``, so the audit trail ties them together. At
        ``deadline`` the step is cancelled as a caller's cancel would and settles as such; an
        effect it had dispatched drains for ``STEP_DRAIN_S`` more at most, not for the whole
        composition's settlement bound: still unanswered then, it is cut, its tab quarantined,
        and the step settles as an unknown outcome, so the composition can answer."""
        spec = self._step_spec(tool)
        if isinstance(spec, str):
            return ToolResult.error(spec)
        arguments = _with_tab(spec, arguments, tab)
        context = parent.context
        sink = _StepSink()
        step = CallState(
            context=WorkContext(
                work_id=f"{context.work_id}/{number}",
                operation=spec.name,
                workspace_id=context.workspace_id,
                client_label=context.client_label,
                restriction=context.restriction,
            ),
            spec=spec,
            arguments=arguments,
            producer=parent.producer,
            sink=sink,
            started_at=self._parts.clock(),
            settle_by=min(parent.settle_by, deadline + STEP_DRAIN_S),
        )
        step.scope.deadline = deadline
        try:
            await self.run(step)
        finally:
            parent.effects_dispatched += step.effects_dispatched
        outcome = sink.outcome
        assert outcome is not None, "a call always settles"
        return ToolResult(
            kind=outcome.kind, content=list(outcome.content), structured=outcome.structured
        )

    def check_step(
        self, parent: CallState, tool: str, arguments: Mapping[str, Any], tab: int | None
    ) -> tuple[str, str] | None:
        """What would refuse a step before it runs (see ``Effects.check_step``): the checks a
        call passes before anything else, without running it."""
        spec = self._step_spec(tool)
        if isinstance(spec, str):
            return "invalid", spec
        arguments = _with_tab(spec, arguments, tab)
        refused = self._refusal(spec, arguments, parent.context.workspace_id)
        if refused is None or _held_state_only(spec, arguments, refused):
            return None
        kind, text = refused
        return ("denied" if kind in ("denied", "left") else "invalid"), text

    def denied_at(self, call: CallState, url: str) -> str | None:
        """Asked by a handler before it reaches into an embedded document of its page."""
        return self._parts.gate.denied_at(call, url)

    def closed_at(self, call: CallState, url: str) -> str | None:
        """Asked by a handler before it shows words of an embedded document of its page."""
        return self._parts.gate.closed_at(call, url)

    def _refusal(
        self, spec: ToolSpec, arguments: Mapping[str, Any], workspace: WorkspaceId | None
    ) -> tuple[str, str] | None:
        """Why a call cannot start at all, as (result kind, text): arguments that do not fit
        the tool's schema, or a tab outside the workspace. None when it may go on."""
        if not self._certainly_valid(spec.name, spec.input_schema, arguments):
            problem = self._parts.catalog.validate(spec.name, arguments)
            if problem is not None:
                return "tool_error", problem
        return self._tab_refusal(arguments, workspace)

    def _tab_refusal(
        self, arguments: Mapping[str, Any], workspace: WorkspaceId | None
    ) -> tuple[str, str] | None:
        """Why the call's ``tabId`` is not the workspace's to drive: ``tool_error`` for an id
        that is no whole number, ``left`` for a tab that was the workspace's and left it (closed
        or moved out: checked again once the call holds the tab), ``denied`` for any other."""
        if "tabId" not in arguments:
            return None
        tab = tab_id_argument(arguments)
        if tab is None:  # a mistake in the arguments, not a question of whose tab it is
            return "tool_error", texts.tab_id_not_whole(arguments["tabId"])
        if self._parts.workspaces.verify_tab(workspace, tab):
            return None
        if self._parts.workspaces.left_workspace(workspace, tab):
            return "left", texts.tab_left_workspace(arguments["tabId"])
        return "denied", texts.tab_not_in_workspace(arguments["tabId"])

    def _step_spec(self, tool: str) -> ToolSpec | str:
        """The spec a step runs under, or why it cannot run at all."""
        spec = self._parts.catalog.callable_spec(tool)
        if spec is None or tool not in self._parts.handlers:
            return texts.unknown_step_tool(tool)
        if spec.scheduling_class == "composition":
            return texts.nested_composition(tool)
        return spec

    async def _notify_after(self, call: ToolCall, result: ToolResult) -> None:
        """Tell the after-call observers (a recording of the tab, say) while the tab's lease is
        still held. Bounded and shielded: an observer can neither lose the call's result to a
        cancel nor hold the call for long, and its failures are only logged."""
        with trio.CancelScope(shield=True, deadline=trio.current_time() + AFTER_CALL_BOUND):
            for observe in self._parts.after_call:
                try:
                    await observe(call, result)
                except Exception:
                    log.exception("after-call observer failed (work %s)", call.context.work_id)

    def _certainly_valid(self, name: str, schema: Any, arguments: Mapping[str, Any]) -> bool:
        """The cached fast predicate; False means "ask the catalog", never "invalid"."""
        try:
            check = self._fast_checks[name]
        except KeyError:
            check = self._fast_checks[name] = compile_fast_check(schema)
        return check is not None and check(arguments)

    def reply_deadline(self, call: CallState) -> float:
        return call.started_at + self._parts.limits.reply_deadline

    def reply_deadline_passed(self, call: CallState) -> None:
        """At the reply deadline: retire unstarted work, or tell the caller the truth once."""
        if call.reported is not None or call.settled:
            return
        request = call.lease_request
        if request is None or not request.granted:
            call.cancel("not_started")
            return
        text = texts.STILL_SETTLING
        if call.done_so_far:
            text += f" So far: {call.done_so_far}."
        self._report(call, _outcome(call, "outcome_unknown", text))

    # --- settling ---------------------------------------------------------------------------

    def _quarantine_if_uncertain(self, call: CallState, lease: Lease) -> None:
        if call.uncertain_proof is not None:
            lease.mark_uncertain(call.uncertain_proof)
            call.quarantined = lease.key
            log.warning(
                "work %s left %s uncertain; it stays quarantined until proven",
                call.context.work_id,
                lease.key.describe(),
            )

    def _settle_cancelled(self, call: CallState) -> None:
        if call.settled:
            return
        stop = self._parts.gate.stopped(call)
        in_time = self._parts.clock() < call.settle_by
        if stop is not None and call.uncertain_proof is None and in_time:
            self._settle(call, stop.kind, _with_done(stop.text, call))
            return
        if call.uncertain_proof is not None or not in_time:
            self._settle(call, "outcome_unknown", texts.UNSETTLED)
        elif call.cancel_reason == "not_started" and not call.may_have_started:
            text = texts.not_started_in_time(call.spec.name, self._parts.limits.reply_deadline)
            self._settle(call, "tool_error", text)
        elif call.cancel_reason == "not_started":
            self._settle(call, "outcome_unknown", texts.STILL_SETTLING)
        elif call.may_have_started:
            self._settle(call, "cancelled", _with_done(texts.CANCELLED_AFTER_DISPATCH, call))
        else:
            self._settle(call, "cancelled", texts.CANCELLED_BEFORE_START)

    def _settle_result(self, call: CallState, result: ToolResult) -> None:
        workspace = result.workspace_id
        if result.kind == "ok" and call.spec.workspace_use == "creates":
            workspace = workspace or call.context.workspace_id
        outcome = Outcome(
            work_id=call.context.work_id,
            kind=result.kind,
            content=list(result.content),
            structured=result.structured,
            workspace_id=workspace,
        )
        self._finish(call, outcome)

    def _settle(self, call: CallState, kind: str, text: str) -> None:
        self._finish(call, _outcome(call, kind, text))

    def _with_quarantine_notice(self, call: CallState, outcome: Outcome) -> Outcome:
        """An unknown outcome that left its tab quarantined says so, and what frees it: the
        agent's next call there would otherwise be its first news of it."""
        if outcome.kind != "outcome_unknown" or not isinstance(call.quarantined, TabSurface):
            return outcome
        notice = TextBlock(text=texts.quarantined_now(call.quarantined.describe()))
        return attrs.evolve(outcome, content=[*outcome.content, notice])

    def _finish(self, call: CallState, outcome: Outcome) -> None:
        """The single terminal step: audit, then answer (unless already answered).

        The record is written first, so a caller that has its answer can always find it.
        """
        if call.settled:
            return
        call.settled = True
        outcome = self._with_quarantine_notice(call, outcome)
        # A caller that cancelled or left is told nothing (MCP sends no answer to a cancelled
        # request, and a lost stream carries none): the record says so, unless it was answered
        # before (an "outcome unknown" at the reply deadline).
        told = None if call.cancel_reason == "caller" else outcome.kind
        record = self._record(call, call.finished_as or outcome.kind, call.reported or told)
        safe_audit(self._parts.audit, record)
        self._report(call, outcome)

    def dispatching(self, call: CallState) -> None:
        """The call is about to send its first effect: written ahead, so that a service that
        stops before the call settles leaves a trail that still names it."""
        write = self._audit_dispatch
        if write is not None:
            safe_audit(write, self._record(call, "dispatched", ""))
        problem = self.audit_problem()
        if problem:  # that line is not in the trail: the request is not sent
            call.dispatch_recorded = False
            raise AuditUnavailable(problem)

    def audit_problem(self) -> str:
        """Why audit records cannot be written now ("" when they can, or nobody can tell)."""
        unwritable = self._audit_unwritable
        return unwritable() if unwritable is not None else ""

    def _record(self, call: CallState, outcome: str, reported: str | None) -> AuditRecord:
        facts: GateFacts = call.gate_facts or NOT_EVALUATED
        decided = attrs.asdict(facts, recurse=False)
        decided["action"] = facts.action or _declared_action(call.spec, call.arguments)
        return AuditRecord(
            time=time.time(),
            work_id=call.context.work_id,
            operation=call.context.operation,
            workspace=self._parts.workspaces.fingerprint(call.context.workspace_id),
            outcome=outcome,
            reported=reported,
            duration=self._parts.clock() - call.started_at,
            effects_dispatched=call.effects_dispatched,
            client=call.context.client_label,
            **decided,
        )

    def _report(self, call: CallState, outcome: Outcome) -> None:
        if call.reported is not None:
            return
        call.reported = outcome.kind
        call.sink.post(outcome)


AfterCall = Callable[[ToolCall, ToolResult], Awaitable[None]]
"""Told of every successful call on a tab, with the tab still leased."""
AFTER_CALL_BOUND = 5.0
STEP_DRAIN_S = 2.0
"""How long past its deadline a composed step's dispatched effect may still drain."""

_UNOWNED_TAB = GateFacts(decision="deny", rule="unowned_tab")
_AUDIT_UNWRITABLE = GateFacts(decision="held", rule="audit_unwritable")


def _declared_action(spec: ToolSpec, arguments: Mapping[str, Any]) -> str | None:
    """The action a call the gate never judged names (bad arguments, a tab outside the
    workspace, a quarantined tab), read as the gate reads it, so the record still says what
    was tried. Only a value the catalog declares for the tool: the audit never stores
    arguments, and anything else is the client's own text."""
    key = spec.action_key
    if key is None:
        return None
    if key == "submit":  # a flag that selects the catalog's ``submit`` row
        return "submit" if arguments.get(key) is True else None
    value = arguments.get(key)
    return value if isinstance(value, str) and value in _action_values(spec) else None


def _action_values(spec: ToolSpec) -> Collection[str]:
    """The actions the catalog declares for a tool: its capability rows and its schema's
    enumeration (an action may be offered before any row classifies it)."""
    key = spec.action_key
    schema = spec.input_schema.get("properties", {}).get(key, {}) if key else {}
    listed = schema.get("enum", ()) if isinstance(schema, dict) else ()
    return {*spec.capabilities, *listed} - {"*"}


class _StepSink:
    """Where a composed step's outcome goes: back to its composition, not to the stream."""

    outcome: Outcome | None = None

    def post(self, message: Message) -> None:
        if isinstance(message, Outcome):
            self.outcome = message

    def post_progress(self, message: Progress) -> None:
        pass


def _held_state_only(
    spec: ToolSpec, arguments: Mapping[str, Any], refused: tuple[str, str] | None
) -> bool:
    """The refusal is only that the tab left the workspace, and the call needs nothing of the
    tab but what the service holds for it (a recording): it goes on, reaching no tab."""
    return refused is not None and refused[0] == "left" and acts_on_held_state(spec, arguments)


def _with_tab(spec: ToolSpec, arguments: Mapping[str, Any], tab: int | None) -> Mapping[str, Any]:
    """A step's arguments with the composition's tab, when it takes one and names none."""
    if tab is None or "tabId" in arguments or "tabId" not in spec.input_schema.get("properties", {}):
        return arguments
    return {**arguments, "tabId": tab}


def _with_done(text: str, call: CallState) -> str:
    """A stop's text, with what the handler said had taken effect by then."""
    if not call.done_so_far:
        return text
    return f"{text} Done before it stopped: {call.done_so_far}."


def _outcome(call: CallState, kind: str, text: str) -> Outcome:
    content: list[ContentBlock] = [TextBlock(text=text)]
    return Outcome(work_id=call.context.work_id, kind=kind, content=content)  # type: ignore[arg-type]
