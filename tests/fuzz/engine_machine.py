"""The cancellation-race machine: the real engine against a scripted browser, under MockClock.

The real ``WorkEngine``, ``Scheduler``, ``WorkspaceRegistry`` and audit hook run the real context
tools (``tabs_context_mcp``, ``tabs_create_mcp``, ``navigate``), the real service-local
``update_plan`` and the real composed tool ``script``, whose steps are navigations run as calls
of their own (each under its own lease, with its own audit record). The browser is scripted: a request waits until the machine replies to it,
disconnects the browser, or lets time run past its bound.

Trio runs in a helper thread with a manual ``MockClock``; every rule is one command executed in
that loop, after which the loop runs until every task is blocked again. Hypothesis makes Trio's
scheduling order deterministic, so examples replay and shrink.
"""

from __future__ import annotations

import math
import threading
from collections import Counter, defaultdict
from collections.abc import Awaitable, Callable
from typing import Any

import attrs
import trio
import trio.testing
from hypothesis import strategies as st
from hypothesis.stateful import (
    Bundle,
    RuleBasedStateMachine,
    invariant,
    multiple,
    precondition,
    rule,
)

import ghostlight_trio.engine  # noqa: F401  (loads before workspace: they import each other)
from ghostlight_trio.browser.errors import (
    BrowserError,
    BrowserUnavailable,
    OutcomeUnknown,
)
from ghostlight_trio.catalog.registry import Catalog, load_specs
from ghostlight_trio.engine import texts
from ghostlight_trio.engine.audit import AuditRecord
from ghostlight_trio.engine.engine import WorkEngine
from ghostlight_trio.governance.gate import GovernanceGate
from ghostlight_trio.governance.governor import Governor
from ghostlight_trio.scheduler import Scheduler, TabSurface
from ghostlight_trio.tools.registry import ToolDeps, tool_handlers
from ghostlight_trio.tools.script import run_script
from ghostlight_trio.tools.update_plan import PlanBook
from ghostlight_trio.transport.bridge import Message, Outcome, Progress, RequestContext, Start
from ghostlight_trio.workspace import WorkspaceRegistry, compose_tab_id, split_tab_id

from .profiles import INVARIANTS, STATS

SLOT = 1
TABS = (compose_tab_id(SLOT, 7), compose_tab_id(SLOT, 8))
NEW_TAB = compose_tab_id(SLOT, 100)
MUTATING = frozenset({"navigate", "tabs_create"})

NOTHING_HAPPENED = (
    "nothing ran",
    "nothing was sent",
    "nothing was started",
    "safe to retry",
    "before anything was dispatched",
)
"""Phrases that claim no effect took place: only allowed when nothing reached the browser."""


class MachineBroken(AssertionError):
    """The Trio side of the machine failed (a task raised, or the loop died)."""


# --- the scripted browser ---------------------------------------------------------------------


@attrs.define(eq=False)
class Request:
    number: int
    work_id: str
    op: str
    args: dict[str, Any]
    key: TabSurface | None
    sent_at: float
    done: trio.Event = attrs.Factory(trio.Event)
    answer: str | None = None
    """ok, error, garbage, unknown (disconnect or bound) once settled."""
    waiting: bool = True


class ScriptedBrowser:
    """Implements the shore's ``request`` contract; every reply is the machine's decision."""

    def __init__(self) -> None:
        self.connected = True
        self.honour_bounds = True
        """False: requests ignore the tool's own bound, so only the engine's 60 s reply deadline
        and 180 s settlement bound end them (a hung browser; replies may come after either)."""
        self.generation = 1
        self.requests: list[Request] = []
        self.by_work: dict[str, list[Request]] = defaultdict(list)
        self.uncertain_keys: set[TabSurface] = set()
        self.violations: list[str] = []
        self._changed = trio.Event()

    def pending(self) -> list[Request]:
        return [r for r in self.requests if r.waiting]

    async def request(
        self,
        workspace_id: Any,
        op: str,
        args: dict[str, Any],
        *,
        timeout: float,  # noqa: ASYNC109 - mirrors the shore's contract
        stop: trio.Event | None = None,  # as an extension without stopRequestV1: never stopped
    ) -> dict[str, Any]:
        work_id = _current_work_id()
        with trio.move_on_after(5.0):  # the shore's first-call wait for a browser
            while not self.connected:
                await self._changed.wait()
        if not self.connected:
            raise BrowserUnavailable("Browser extension disconnected; nothing was sent.")
        key = _surface_of(args)
        if key is not None and key in self.uncertain_keys:
            self.violations.append(
                f"{op} for {work_id} dispatched on {key} while an earlier effect there is unknown"
            )
        request = Request(len(self.requests) + 1, work_id, op, dict(args), key, trio.current_time())
        self.requests.append(request)
        self.by_work[work_id].append(request)
        try:
            with trio.move_on_after(timeout if self.honour_bounds else math.inf):
                await request.done.wait()
        finally:
            request.waiting = False
        if request.answer is None:
            self._unknown(request)
            raise OutcomeUnknown(f"The browser did not answer within {timeout:g}s", proof=_proof(request))
        if request.answer == "unknown":
            raise OutcomeUnknown("Browser extension disconnected before responding", proof=_proof(request))
        if request.answer == "error":
            raise BrowserError("No tab with that id", hop="extension")
        if request.answer == "garbage":
            return ["not", "an", "object"]  # type: ignore[return-value]
        return self._result(request)

    def _unknown(self, request: Request) -> None:
        request.answer = "unknown"
        if request.key is not None and request.op in MUTATING:
            self.uncertain_keys.add(request.key)

    def reply(self, request: Request, answer: str) -> None:
        if request.waiting and request.answer is None:
            request.answer = answer
            request.done.set()

    def disconnect(self) -> None:
        self.connected = False
        for request in self.pending():
            self._unknown(request)
            request.done.set()

    def restart(self, scheduler: Scheduler) -> None:
        """The browser comes back as a new process: every earlier uncertainty is moot."""
        self.connected = True
        self.generation += 1
        self.uncertain_keys.clear()
        scheduler.browser_restarted(SLOT)
        self._changed.set()
        self._changed = trio.Event()

    def _result(self, request: Request) -> dict[str, Any]:
        if request.op == "tabs_create":
            return {"tabId": NEW_TAB, "groupId": 3}
        if request.op == "tabs_context":
            owned = request.args.get("ownedTabIds") or []
            tabs = [{"tabId": t, "title": "t", "url": "about:blank"} for t in owned]
            if not tabs and request.args.get("createIfEmpty"):
                tabs = [{"tabId": NEW_TAB, "title": "", "url": "about:blank"}]
            return {"tabs": tabs, "groupId": 3}
        if request.op == "navigate":
            return {"url": request.args.get("url", ""), "title": "page", "loaded": True}
        return {"ok": True}


def context_tools(registry: WorkspaceRegistry, browser: Any) -> dict[str, Any]:
    """The registry's tabs_context_mcp, tabs_create_mcp and navigate over ``browser``."""
    every = tool_handlers(ToolDeps(browser, registry))
    return {name: every[name] for name in ("tabs_context_mcp", "tabs_create_mcp", "navigate")}


def _proof(request: Request) -> str:
    return f"browser:{SLOT}:r{request.number}"


def _surface_of(args: dict[str, Any]) -> TabSurface | None:
    tab = args.get("tabId")
    if isinstance(tab, int) and not isinstance(tab, bool) and tab > 0:
        return TabSurface(*split_tab_id(tab))
    return None


def _current_work_id() -> str:
    name = trio.lowlevel.current_task().name
    parts = name.split(" ")
    return parts[1] if len(parts) > 2 and parts[0] == "work" else name


# --- the engine in a Trio thread --------------------------------------------------------------


class Sink:
    """A stream's answers, with what the browser had seen of each call when it was answered."""

    def __init__(self, browser: ScriptedBrowser) -> None:
        self.browser = browser
        self.outcomes: dict[str, list[Outcome]] = defaultdict(list)
        self.sent_when_answered: dict[str, int] = {}
        self.unconfirmed_when_answered: dict[str, list[str]] = {}
        self.messages = 0

    def post(self, message: Message) -> None:
        self.messages += 1
        if isinstance(message, Outcome):
            self.outcomes[message.work_id].append(message)
            requests = self.browser.by_work.get(message.work_id, [])
            self.sent_when_answered.setdefault(message.work_id, len(requests))
            self.unconfirmed_when_answered.setdefault(
                message.work_id,
                [f"{r.op}:{r.answer}" for r in requests if r.op in MUTATING and r.answer != "ok"],
            )

    def post_progress(self, message: Progress) -> None:
        pass


class TrioThread:
    """One Trio run under a manual MockClock, driven command by command from another thread."""

    def __init__(self) -> None:
        self.clock = trio.testing.MockClock()
        self._ready = threading.Event()
        self._stop: trio.Event | None = None
        self.token: trio.lowlevel.TrioToken | None = None
        self.nursery: trio.Nursery | None = None
        self.failure: BaseException | None = None
        self.leftover_tasks: list[str] = []
        self._thread = threading.Thread(target=self._main, name="fuzz-trio", daemon=True)
        self._thread.start()
        if not self._ready.wait(10):
            raise MachineBroken("the Trio thread did not start")

    def _main(self) -> None:
        try:
            trio.run(self._body, clock=self.clock)
        except BaseException as exc:  # noqa: BLE001 - reported to the machine
            self.failure = exc
        finally:
            self._ready.set()

    async def _body(self) -> None:
        self._stop = trio.Event()
        self.token = trio.lowlevel.current_trio_token()
        async with trio.open_nursery() as nursery:
            self.nursery = nursery
            self._ready.set()
            await self._stop.wait()
            self.leftover_tasks = [task.name for task in nursery.child_tasks]
            nursery.cancel_scope.cancel()

    def run(self, fn: Callable[[], Awaitable[Any]]) -> Any:
        """Run ``fn`` in the loop, then let every task run until all are blocked."""
        if self.failure is not None:
            raise MachineBroken(f"the engine's loop died: {self.failure!r}") from self.failure

        async def command() -> Any:
            result = await fn()
            await trio.testing.wait_all_tasks_blocked()
            return result

        try:
            return trio.from_thread.run(command, trio_token=self.token)
        except trio.RunFinishedError:
            raise MachineBroken(f"the engine's loop died: {self.failure!r}") from self.failure

    def run_sync(self, fn: Callable[[], Any]) -> Any:
        async def wrapped() -> Any:
            return fn()

        return self.run(wrapped)

    async def advance(self, seconds: float) -> None:
        """Let ``seconds`` of mock time pass, waking every deadline in order on the way."""
        target = trio.current_time() + seconds
        self.clock.autojump_threshold = 0
        try:
            await trio.sleep_until(target)
        finally:
            self.clock.autojump_threshold = math.inf

    def finish(self) -> list[str]:
        """Stop the loop; the names of tasks still running in the work nursery."""
        if self.failure is None and self.token is not None and self._stop is not None:
            try:
                trio.from_thread.run_sync(self._stop.set, trio_token=self.token)
            except trio.RunFinishedError:
                pass
        self._thread.join(10)
        if self.failure is not None and not isinstance(self.failure, trio.Cancelled):
            raise MachineBroken(f"the engine's loop died: {self.failure!r}") from self.failure
        return self.leftover_tasks


# --- the machine ------------------------------------------------------------------------------


@attrs.define(eq=False)
class CallModel:
    work_id: str
    tool: str
    workspace: str | None
    session: int
    cancel_phases: list[str] = attrs.Factory(list)


class CancellationRace(RuleBasedStateMachine):
    """See the module docstring; every ``@invariant`` is checked after every step."""

    calls = Bundle("calls")

    def __init__(self) -> None:
        super().__init__()
        STATS["cancellation race: examples"] += 1
        self.checks_run = 0
        self.loop = TrioThread()
        self.browser = ScriptedBrowser()
        self.audit: list[AuditRecord] = []
        self.calls_by_id: dict[str, CallModel] = {}
        self.sequence = 0

        def build() -> None:
            self.workspaces_registry = WorkspaceRegistry()
            self.scheduler = Scheduler()
            handlers = {
                **context_tools(self.workspaces_registry, self.browser),
                "script": run_script,
                "update_plan": PlanBook().update_plan,
            }
            self.governor = Governor()

            async def probe(workspace: Any, tab: int) -> str:
                info = await self.browser.request(workspace, "tab_info", {"tabId": tab}, timeout=10)
                return str(info.get("url", ""))

            self.engine = WorkEngine(
                catalog=Catalog(load_specs(), available=handlers.keys()),
                handlers=handlers,
                workspaces=self.workspaces_registry,
                scheduler=self.scheduler,
                audit=self.audit.append,
                gate=GovernanceGate(self.governor, probe=probe),
            )
            self.workspace_ids: list[str] = []
            for tab in TABS:
                ws, _ = self.workspaces_registry.open(None, "fuzz")
                assert self.workspaces_registry.adopt_tabs(ws, [tab])
                self.workspace_ids.append(ws)
            self.sinks: list[Sink] = []
            self.sessions: list[Any] = []
            self._open_session()

        self.loop.run_sync(build)

    def _open_session(self) -> None:
        sink = Sink(self.browser)
        assert self.loop.nursery is not None
        self.sinks.append(sink)
        self.sessions.append(self.engine.open_session(self.loop.nursery, sink))

    # --- rules --------------------------------------------------------------------------

    @rule(
        target=calls,
        tool=st.sampled_from(
            ["navigate", "navigate", "script", "tabs_create_mcp", "tabs_context_mcp", "update_plan"]
        ),
        which=st.integers(0, 1),
        cancel_at_once=st.booleans(),
        valid=st.booleans() | st.just(True),
        steps=st.integers(1, 3),
    )
    def start(self, tool: str, which: int, cancel_at_once: bool, valid: bool, steps: int) -> Any:
        ws = self.workspace_ids[which]
        tab = TABS[which]
        arguments: dict[str, Any]
        if tool == "navigate":
            arguments = {"url": "http://127.0.0.1/page" if valid else 17, "tabId": tab}
        elif tool == "script":
            arguments = {
                "tabId": tab,
                "steps": [
                    {"tool": "navigate", "args": {"url": f"http://127.0.0.1/step{n}"}}
                    for n in range(1, steps + 1)
                ],
            }
            if not valid:
                arguments["steps"] = "not a list"
        elif tool == "tabs_create_mcp":
            ws = None if which else ws  # sometimes the call mints its workspace
        elif tool == "tabs_context_mcp":
            arguments = {"createIfEmpty": True} if valid else {"createIfEmpty": "yes"}
        else:
            arguments = {"domains": ["127.0.0.1"], "approach": ["look"]}
        if tool == "tabs_create_mcp":
            arguments = {}
        session_number = len(self.sessions) - 1
        session = self.sessions[-1]

        async def go() -> Any:
            self.sequence += 1
            reply = session.start(
                Start(
                    sequence=self.sequence,
                    operation=tool,
                    arguments=arguments,
                    workspace_id=ws,
                    context=RequestContext(client_label="fuzz"),
                )
            )
            work_id = getattr(reply, "work_id", None)
            if work_id is not None and cancel_at_once:
                session.cancel(work_id)  # before the call's task ever reached the scheduler
            return work_id

        work_id = self.loop.run(go)
        if work_id is None:
            return multiple()
        model = CallModel(work_id, tool, ws, session_number)
        if cancel_at_once:
            model.cancel_phases.append("before queueing")
        self.calls_by_id[work_id] = model
        return work_id

    @rule(work_id=calls)
    def cancel(self, work_id: str) -> None:
        model = self.calls_by_id[work_id]
        session = self.sessions[model.session]

        def go() -> None:
            model.cancel_phases.append(self._phase(work_id))
            session.cancel(work_id)

        self.loop.run_sync(go)

    @precondition(lambda self: bool(self.browser.pending()))
    @rule(
        pick=st.integers(0, 50),
        answer=st.sampled_from(["ok", "ok", "ok", "error", "garbage"]),
    )
    def reply(self, pick: int, answer: str) -> None:
        def go() -> None:
            pending = self.browser.pending()
            if pending:
                self.browser.reply(pending[pick % len(pending)], answer)

        self.loop.run_sync(go)

    @rule(seconds=st.sampled_from([0.5, 3, 10, 31, 61, 125, 181]))
    def advance(self, seconds: float) -> None:
        STATS["cancellation race: mock seconds advanced"] += int(seconds)
        self.loop.run(lambda: self.loop.advance(seconds))

    @rule(honour=st.booleans())
    def browser_bounds(self, honour: bool) -> None:
        """Let later requests hang past 60 s and 180 s (or keep the tools' own bounds)."""
        self.browser.honour_bounds = honour

    @rule()
    def browser_disconnect(self) -> None:
        self.loop.run_sync(self.browser.disconnect)

    @precondition(lambda self: not self.browser.connected)
    @rule()
    def browser_restart(self) -> None:
        self.loop.run_sync(lambda: self.browser.restart(self.scheduler))

    @rule(switch=st.sampled_from(["hold", "panic", "resume", "resume"]))
    def governance_switch(self, switch: str) -> None:
        """The user's hold, kill switch or resume, from the CLI, at any moment."""
        self.loop.run_sync(lambda: self.governor.control(switch))

    @rule()
    def edge_disconnect(self) -> None:
        """The stream is lost: its calls are abandoned, its workspaces detached, a new stream
        reattaches them."""

        def go() -> None:
            lost = len(self.sessions) - 1
            for model in self.calls_by_id.values():
                if model.session == lost:
                    model.cancel_phases.append("stream lost")
            self.sessions[-1].abandon()
            for ws in self.workspace_ids:
                self.workspaces_registry.detach(ws)
            reattached = []
            for ws in self.workspace_ids:
                handle, _ = self.workspaces_registry.open(ws, "fuzz")
                reattached.append(handle)
            self.workspace_ids = reattached
            self._open_session()

        self.loop.run_sync(go)

    # --- invariants -----------------------------------------------------------------------

    def _phase(self, work_id: str) -> str:
        requests = self.browser.by_work.get(work_id, [])
        if any(r.waiting for r in requests):
            return "during an atomic effect"
        if requests:
            return "between composed steps"
        return "queued or not yet started"

    def _active_ids(self) -> set[str]:
        active: set[str] = set()
        for session in self.sessions:
            active.update(session._active)
        return active

    @invariant()
    def truthful(self) -> None:
        # Checked once after the machine is built and once after every step.
        self.checks_run += 1
        self.loop.run_sync(self._check)

    def _check(self) -> None:
        checked: Counter[str] = Counter()
        outcomes: dict[str, list[Outcome]] = defaultdict(list)
        for sink in self.sinks:
            for work_id, found in sink.outcomes.items():
                outcomes[work_id].extend(found)
        sent: dict[str, int] = {}
        unconfirmed: dict[str, list[str]] = {}
        for sink in self.sinks:
            sent.update(sink.sent_when_answered)
            unconfirmed.update(sink.unconfirmed_when_answered)
        audits = Counter(record.work_id for record in self.audit)
        records = {record.work_id: record for record in self.audit}
        active = self._active_ids()

        assert not self.browser.violations, self.browser.violations
        checked["truthful"] += 1
        for work_id, model in self.calls_by_id.items():
            found = outcomes.get(work_id, [])
            requests = self.browser.by_work.get(work_id, [])
            # Exactly one terminal response (at most one while the call runs).
            assert len(found) <= 1, (work_id, found)
            settled = work_id not in active
            if settled:
                assert len(found) == 1, (work_id, model, "settled without an answer")
            checked["one-outcome"] += 2
            # No effect dispatched twice (a script's steps are told apart by their URLs).
            identities = Counter((r.op, r.args.get("url")) for r in requests if r.op in MUTATING)
            assert all(n == 1 for n in identities.values()), (work_id, identities)
            checked["truthful"] += 1
            # One audit record per settled call, none for a running one.
            assert audits[work_id] == (1 if settled else 0), (work_id, audits[work_id], settled)
            checked["audit-once"] += 1
            if not found:
                continue
            outcome = found[0]
            text = " ".join(getattr(block, "text", "") for block in outcome.content)
            # No success for an effect the browser never confirmed.
            if outcome.kind == "ok":
                assert not unconfirmed[work_id], (work_id, unconfirmed[work_id])
            checked["truthful"] += 1
            # Never "it did not happen" once something went out (for a script's steps: once
            # that step's own navigation went out).
            results = (outcome.structured or {}).get("results")
            if model.tool == "script" and isinstance(results, list):
                for step in results:
                    if any(phrase in step.get("result", "") for phrase in NOTHING_HAPPENED):
                        url = f"http://127.0.0.1/step{step['step']}"
                        assert not [r for r in requests if r.args.get("url") == url], (work_id, step)
            elif any(phrase in text for phrase in NOTHING_HAPPENED) or (
                outcome.kind == "cancelled" and text == texts.CANCELLED_BEFORE_START
            ):
                assert not requests, (work_id, text, [r.op for r in requests])
            if outcome.kind == "cancelled" and sent[work_id]:
                # The engine's or the kill switch's wording: either way it owns up to the effect.
                assert "allowed to finish" in text, (work_id, text)
            checked["truthful"] += 2
            if settled:
                record = records[work_id]
                if record.reported is None:
                    # Told nothing: only a caller that cancelled the call, or left, is.
                    assert model.cancel_phases, (record, outcome.kind)
                else:
                    assert record.reported == outcome.kind, (record, outcome.kind)
                assert record.effects_dispatched >= len(requests), (record, len(requests))
                if record.outcome == "ok":
                    assert all(r.answer == "ok" for r in requests if r.op in MUTATING), requests
                checked["audit-once"] += 3
        # Leases and pins are held by running calls only.
        assert self.engine.active_work == len(active), (self.engine.active_work, active)
        pinned = Counter(
            call.context.workspace_id
            for session in self.sessions
            for call in session._active.values()
            if call.context.workspace_id is not None
        )
        pins = {ws: e.pins for ws, e in self.workspaces_registry._live.items() if e.pins}
        assert pins == dict(pinned), (pins, pinned)
        if not active:
            assert self.scheduler.active == 0 and self.scheduler.queued == 0, (
                self.scheduler.active,
                self.scheduler.queued,
            )
        checked["no-leak"] += 3
        INVARIANTS.update(checked)
        STATS["cancellation race: invariants checked"] += sum(checked.values())

    # --- the end ----------------------------------------------------------------------------

    def teardown(self) -> None:
        """Settle everything (browser back, every request answered, time past every bound,
        every stream gone), check the invariants once more, then require an empty nursery."""
        try:
            if self.loop.failure is None:
                self.loop.run_sync(lambda: self.governor.control("resume"))
                if not self.browser.connected:
                    self.loop.run_sync(lambda: self.browser.restart(self.scheduler))
                for _ in range(20):
                    pending = self.browser.pending()
                    if not pending:
                        break
                    self.loop.run_sync(lambda p=pending: [self.browser.reply(r, "ok") for r in p])
                self.loop.run(lambda: self.loop.advance(400))
                self.loop.run_sync(lambda: [s.abandon() for s in self.sessions])
                self.loop.run(lambda: self.loop.advance(1))
                self.loop.run_sync(self._check)
                assert not self._active_ids(), self._active_ids()
        finally:
            leftover = self.loop.finish()
        assert leftover == [], f"tasks still running when the nursery closed: {leftover}"
        STATS["cancellation race: calls settled"] += len(self.calls_by_id)
        STATS["cancellation race: steps"] += max(0, self.checks_run - 1)

