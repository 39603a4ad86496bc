"""Wire-level cancellation races: the real bridge server, engine and MCP edges, over real sockets.

One example is one Trio run, in this thread, under a manual ``MockClock``:

- the real ``BridgeServer`` (opening handshake, framing, outbox, one nursery per stream) serving
  a real owner-only Unix socket, around the real ``WorkEngine``, scheduler and workspace
  registry, whose tools are fakes: a ``navigate`` whose effect finishes at once, waits for the
  walk to release it (or for time to cut it), waits cancellably, or fails; a
  ``tabs_create_mcp`` that mints tabs; the real ``update_plan``;
- MCP clients, each the real ``Edge`` runtime around the real sans-IO ``EraRouter`` of one
  revision (2025-11-25 or 2026-07-28), connecting through ``open_bridge``; their connection can
  be cut part way through a write, dropped with calls in flight, or refused, and the edge
  reconnects by itself when a request needs it;
- a raw bridge client that writes frames by hand: Cancel as Started or an Outcome crosses it,
  Cancel for another connection's work, a partial frame then close.

Each step is one action drawn by Hypothesis; the loop then runs until every task is blocked
and the invariants are checked (``Oracle``). After every fault a fresh connection's normal call
must still be served. At the end everything is released, time runs past every bound, every
client leaves, and no task may be left. Hypothesis makes Trio's scheduling order
deterministic, so examples replay and shrink.
"""

from __future__ import annotations

import atexit
import functools
import itertools
import json
import logging
import math
import shutil
import sys
import tempfile
import threading
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import attrs
import trio
import trio.testing
from ghostlight_mcp_connector import failures
from ghostlight_mcp_connector.actions import SendBridge
from ghostlight_mcp_connector.bridge_client import ConnectFailed
from ghostlight_mcp_connector.era import EraRouter
from ghostlight_mcp_connector.runtime import Edge
from hypothesis import strategies as st

import ghostlight_trio.engine  # noqa: F401  (loads before workspace: they import each other)
from ghostlight_trio.catalog.registry import Catalog, load_specs
from ghostlight_trio.engine.audit import AuditRecord
from ghostlight_trio.engine.contracts import ToolCall, ToolResult, UncertainEffect
from ghostlight_trio.engine.engine import WorkEngine
from ghostlight_trio.engine.session import WorkSession
from ghostlight_trio.scheduler import Scheduler
from ghostlight_trio.service.app import ServiceParts
from ghostlight_trio.service.bridge_server import BridgeServer
from ghostlight_trio.service.listener import bind_owner_only_socket
from ghostlight_trio.service.streams import LiveStreams
from ghostlight_trio.tools.update_plan import PlanBook
from ghostlight_trio.transport.bridge import (
    Cancel,
    Fatal,
    Message,
    OpenWorkspace,
    Outcome,
    Progress,
    Rejected,
    RequestContext,
    ServiceHello,
    Start,
    Started,
    TextBlock,
    WorkspaceOpened,
)
from ghostlight_trio.transport.bridge_codec import BridgeProtocolError, encode_message
from ghostlight_trio.transport.endpoints import Endpoints
from ghostlight_trio.transport.framing import FrameError, encode_frame
from ghostlight_trio.transport.handshake import open_bridge
from ghostlight_trio.transport.proof import load_or_create_secret
from ghostlight_trio.transport.stream import BridgeClosed, MessageStream
from ghostlight_trio.workspace import WorkspaceRegistry, compose_tab_id

from .profiles import BROKEN, INVARIANTS, STATS

TOOLS = ("navigate", "tabs_create_mcp", "update_plan")
BEHAVIOURS = ("quick", "quick", "held", "held", "waiting", "crash")
"""How a fake navigate behaves: its effect finishes at once; is dispatched and waits for the
walk to release it (or for the settlement bound to cut it); waits cancellably with nothing
dispatched; or fails before dispatching anything."""
ANSWERS = ("ok", "ok", "error", "raise")
SECONDS = (0.5, 2, 10, 31, 61, 125, 181)
BOGUS_TAB = compose_tab_id(1, 99_999)
META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
}

NOT_ENTERED = ("nothing ran", "nothing was started", "safe to retry")
"""Words that say the call's tool never ran at all."""
NOT_DISPATCHED = ("nothing was sent", "before anything was dispatched", "Nothing was done on it")
"""Words that say no effect of the call went out."""

HANG_SECONDS = 30.0
"""Real seconds one example may take before the watchdog stops it as hung (most take well
under one)."""


class InvariantBroken(AssertionError):
    """What the walk saw break, every violation of the step in one message."""


# --- the one instance every example serves (a short private directory per process) ---------


@functools.cache
def _instance() -> tuple[Endpoints, bytes]:
    root = Path(tempfile.mkdtemp(prefix="glw-"))
    atexit.register(shutil.rmtree, root, True)
    endpoints = Endpoints(
        instance="fuzz",
        runtime_dir=root / "run",
        data_dir=root / "data",
        edge_socket=root / "run" / "edge.sock",
        browser_socket=root / "run" / "browser.sock",
        lock_file=root / "run" / "service.lock",
        secret_file=root / "data" / "bridge.secret",
    )
    endpoints.ensure_private_dirs()
    return endpoints, load_or_create_secret(endpoints.secret_file)


@functools.cache
def _catalog() -> Catalog:
    return Catalog(load_specs(), available=TOOLS)


def _navigate_args(number: int, tab: int) -> dict[str, Any]:
    return {"url": f"http://127.0.0.1/call/{number}", "tabId": tab}


def _plan_args(number: int) -> dict[str, Any]:
    return {"domains": ["127.0.0.1"], "approach": [f"call {number}"]}


def number_of(tool: str, arguments: Any) -> int | None:
    """The walk's number for a call, from its arguments (None for ``tabs_create_mcp``)."""
    try:
        if tool == "navigate":
            return int(str(arguments["url"]).rsplit("/", 1)[1])
        if tool == "update_plan":
            return int(str(arguments["approach"][0]).split()[1])
    except (KeyError, IndexError, ValueError, TypeError):
        return None
    return None


def claim_of(text: str) -> str | None:
    """What an answer says did not happen: ``entered`` (the tool never ran), ``dispatched``
    (no effect went out), or None."""
    if any(words in text for words in NOT_ENTERED):
        return "entered"
    if any(words in text for words in NOT_DISPATCHED):
        return "dispatched"
    return None


def _text(content: Sequence[Any]) -> str:
    return " ".join(getattr(block, "text", "") for block in content)


# --- the fake tools ---------------------------------------------------------------------------


@attrs.define(eq=False)
class Effect:
    """One entry into a fake tool's handler."""

    work_id: str
    tool: str
    number: int | None
    label: str
    workspace: str | None
    behaviour: str
    tab: int | None = None
    release: trio.Event = attrs.Factory(trio.Event)
    answer: str = "ok"
    dispatched: bool = False
    finished: str | None = None
    """ok, tool_error, raised, cancelled or cut, once the handler is done."""


class FakeTools:
    """Handlers whose every entry is recorded, checked for isolation and steered by the walk."""

    def __init__(self, world: WireWorld) -> None:
        self.world = world
        self.plans = PlanBook()
        self.tab_numbers = itertools.count(1)
        self.effects: list[Effect] = []
        self.by_number: dict[int, Effect] = {}
        self.by_tab: dict[int, Effect] = {}
        self.behaviour: dict[int, str] = {}

    def handlers(self) -> dict[str, Any]:
        return {
            "navigate": self.navigate,
            "tabs_create_mcp": self.tabs_create,
            "update_plan": self.update_plan,
        }

    def _enter(self, call: ToolCall, number: int | None, behaviour: str = "quick") -> Effect:
        context = call.context
        effect = Effect(
            context.work_id,
            context.operation,
            number,
            context.client_label,
            context.workspace_id,
            behaviour,
        )
        self.world.oracle.entered(effect)
        self.effects.append(effect)
        if number is not None:
            self.by_number[number] = effect
        return effect

    async def navigate(self, call: ToolCall) -> ToolResult:
        number = number_of("navigate", call.arguments)
        effect = self._enter(call, number, self.behaviour.get(number or 0, "quick"))
        effect.tab = int(call.arguments["tabId"])
        self.world.oracle.reaches_tab(effect)
        try:
            result = await self._behave(call, effect)
        except trio.Cancelled:
            effect.finished = "cancelled"
            raise
        except UncertainEffect:
            effect.finished = "cut"
            raise
        except Exception:
            effect.finished = "raised"
            raise
        finally:
            self._late(effect)
        effect.finished = result.kind
        return result

    def _late(self, effect: Effect) -> None:
        """Count a tool that finished after its caller was answered, cancelled it, or left."""
        admission = self.world.oracle.admissions.get(effect.work_id)
        if admission is not None and (
            admission.outcomes or admission.cancelled_by_caller or admission.stream_lost
        ):
            STATS["wire race: late outcomes (tool done after its caller was answered or gone)"] += 1

    async def _behave(self, call: ToolCall, effect: Effect) -> ToolResult:
        if effect.behaviour == "crash":
            raise RuntimeError("the fake navigate failed before sending anything")
        if effect.behaviour == "waiting":  # a wait with nothing dispatched: cancellable
            await effect.release.wait()
            if effect.answer == "raise":
                raise RuntimeError("the fake navigate failed after its wait")
        else:

            async def dispatched() -> None:
                effect.dispatched = True
                if effect.behaviour == "held":
                    await effect.release.wait()
                    if effect.answer == "raise":
                        raise RuntimeError("the fake browser failed mid-effect")

            await call.effects.atomic(dispatched)
        if effect.answer == "error":
            return ToolResult.error("The fake page refused.")
        return ToolResult(
            kind="ok",
            content=[TextBlock(text="Navigated.")],
            structured={"tabId": effect.tab, "url": call.arguments["url"], "title": "t"},
        )

    async def tabs_create(self, call: ToolCall) -> ToolResult:
        effect = self._enter(call, None)
        workspace = call.context.workspace_id
        assert workspace is not None, "a creating call always has its workspace"
        tab = compose_tab_id(1, next(self.tab_numbers))
        effect.tab = tab
        self.by_tab[tab] = effect

        async def create() -> None:
            effect.dispatched = True
            self.world.tab_owner[tab] = workspace
            if not self.world.registry.adopt_tabs(workspace, [tab]):
                raise RuntimeError("the workspace did not take its new tab")

        try:
            await call.effects.atomic(create)
        except BaseException:
            effect.finished = "raised"
            raise
        effect.finished = "ok"
        listed = [{"tabId": tab, "title": "", "url": "about:blank"}]
        return ToolResult(
            kind="ok",
            content=[TextBlock(text=f"Created tab {tab}.")],
            structured={"tabId": tab, "tabs": listed},
        )

    async def update_plan(self, call: ToolCall) -> ToolResult:
        effect = self._enter(call, number_of("update_plan", call.arguments))
        result = await self.plans.update_plan(call)
        effect.finished = result.kind
        return result


# --- the service, traced -------------------------------------------------------------------


@attrs.define(eq=False)
class Admission:
    """One call the service admitted (answered Started)."""

    work_id: str
    tool: str
    number: int | None
    label: str
    session: TracingSession
    cancelled_by_caller: bool = False
    """A Cancel for it arrived on its own stream while it was active."""
    stream_lost: bool = False
    """Its stream ended while it was active."""
    outcomes: list[Outcome] = attrs.Factory(list)
    """What the engine posted for it (to a live stream or a lost one)."""
    records: list[AuditRecord] = attrs.Factory(list)


class CountingSink:
    """Between a session and its outbox: every Outcome the engine posts is seen."""

    def __init__(self, sink: Any, world: WireWorld) -> None:
        self._sink = sink
        self._world = world

    def post(self, message: Message) -> None:
        if isinstance(message, Outcome):
            self._world.oracle.posted(message)
        self._sink.post(message)

    def post_progress(self, message: Progress) -> None:
        self._sink.post_progress(message)


class TracingSession(WorkSession):
    """The real session; admissions, Cancels and its end are told to the oracle."""

    def __init__(self, engine: WorkEngine, nursery: trio.Nursery, sink: Any, world: WireWorld):
        super().__init__(engine, nursery, CountingSink(sink, world))
        self.world = world
        self.admitted: list[Admission] = []

    def start(self, message: Start, *, unfit: tuple[str, str] | None = None) -> Started | Rejected:
        reply = super().start(message, unfit=unfit)
        if isinstance(reply, Started):
            self.world.oracle.admitted(self, message, reply.work_id)
        return reply

    def cancel(self, work_id: str) -> None:
        self.world.oracle.cancel_arrived(self, work_id, active=work_id in self._active)
        super().cancel(work_id)

    def abandon(self) -> None:
        for admission in self.admitted:
            if admission.work_id in self._active:
                admission.stream_lost = True
        super().abandon()


class TracingEngine(WorkEngine):
    def __init__(self, world: WireWorld, **parts: Any) -> None:
        super().__init__(**parts)
        self.world = world

    def open_session(self, nursery: trio.Nursery, sink: Any) -> WorkSession:
        return TracingSession(self, nursery, sink, self.world)


# --- MCP clients: the real Edge runtime around the real sans-IO router ----------------------


class Tap(trio.abc.Stream):
    """A connector's socket with a fault the walk can arm: the next write stops part way and
    the connection closes, as when the process or the socket dies in the middle of a write."""

    def __init__(self, inner: trio.SocketStream) -> None:
        self.inner = inner
        self.cut_at: int | None = None
        self.closed = False

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        if self.cut_at is not None:
            part, self.cut_at = bytes(data[: self.cut_at]), None
            STATS["wire race: writes cut part way (frame bytes then close)"] += 1
            if part:
                await self.inner.send_all(part)
            await self.aclose()
            raise trio.BrokenResourceError("the connection broke part way through a write")
        await self.inner.send_all(data)

    async def wait_send_all_might_not_block(self) -> None:
        await self.inner.wait_send_all_might_not_block()

    async def receive_some(self, max_bytes: int | None = None) -> bytes | bytearray:
        return await self.inner.receive_some(max_bytes)

    async def aclose(self) -> None:
        self.closed = True
        await self.inner.aclose()


class WatchedRouter:
    """The client's sans-IO router, unchanged, with the Starts it hands its runtime to send
    and the Started it is told of, noted for the oracle."""

    def __init__(self, router: EraRouter, client: EdgeClient) -> None:
        self._router = router
        self._client = client

    def __getattr__(self, name: str) -> Any:
        method = getattr(self._router, name)
        if not callable(method):
            return method

        def watched(*args: Any, **kwargs: Any) -> Any:
            for arg in args:
                if isinstance(arg, Started):
                    self._client.started.add(arg.sequence)
            actions = method(*args, **kwargs)
            if isinstance(actions, list):
                for action in actions:
                    if isinstance(action, SendBridge) and isinstance(action.message, Start):
                        self._client.committed(action.message)
            return actions

        return watched


class InProcessConnector:
    """Stands in for ``BridgeConnector``: the real opening to the in-process service, or the
    failure a connector reports when no service answers (while the walk refuses connections)."""

    def __init__(self, world: WireWorld, client: EdgeClient) -> None:
        self.world = world
        self.client = client

    async def connect(self, *, launch: bool = True) -> tuple[MessageStream, ServiceHello]:
        if self.world.refusing:
            raise ConnectFailed("no Ghostlight service is running (the walk refuses)")
        stream, hello = await open_bridge(self.world.endpoints, client_version="fuzz")
        assert isinstance(stream.stream, trio.SocketStream) and not stream.buffered
        tap = Tap(stream.stream)
        self.client.connected(tap)
        return MessageStream(tap), hello


@attrs.define(eq=False)
class EdgeRequest:
    id: int
    tool: str
    number: int | None
    responses: list[dict[str, Any]] = attrs.Factory(list)
    cancelled: bool = False


class EdgeClient:
    """One MCP client with its own connector runtime; it learns tabs and workspaces from the
    answers it gets, as an agent does."""

    def __init__(self, world: WireWorld, index: int, revision: str) -> None:
        self.world = world
        self.revision = revision
        self.label = f"edge{index}-{revision[:4]}"
        router = EraRouter(
            server_info={"name": "ghostlight", "version": "fuzz"},
            instructions_2025="fuzz",
            instructions_2026="fuzz",
            page_size=100,
        )
        self.router: Any = WatchedRouter(router, self)
        send, self.lines = trio.open_memory_channel[bytes](math.inf)
        self.edge = Edge(self.router, InProcessConnector(world, self), world.tasks, send)
        self.ids = itertools.count(1)
        self.requests: dict[int, EdgeRequest] = {}
        self.tabs: list[tuple[str | None, int]] = []
        """(workspace, tab) pairs this client created (2025-11-25: its implicit workspace)."""
        self.workspaces: list[str] = []
        self.tap: Tap | None = None
        self.connections = 0
        self.sent: dict[int, int | None] = {}
        """Start sequence -> call number, once the router asked for the Start to be sent."""
        self.started: set[int] = set()
        """Sequences the router was told were Started."""
        if revision == "2025-11-25":
            init = {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": self.label, "version": "1"},
            }
            self.feed({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": init})
            self.feed({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def feed(self, message: dict[str, Any]) -> None:
        self.edge.apply(self.router.receive_line(json.dumps(message).encode()))

    # --- what its connector sees ---------------------------------------------------------------

    def connected(self, tap: Tap) -> None:
        self.tap = tap
        self.connections += 1
        if self.connections > 1 and any(
            not r.responses and not r.cancelled for r in self.requests.values()
        ):
            STATS["wire race: reconnects with calls in flight"] += 1
        if self.connections > 1:
            settling = [
                a
                for a in self.world.oracle.admissions.values()
                if a.label == self.label and not a.records
            ]
            if settling:
                STATS["wire race: reconnects while earlier calls still settle"] += 1

    def committed(self, message: Start) -> None:
        number = number_of(message.operation, message.arguments)
        self.sent[message.sequence] = number
        self.world.oracle.start_sent(self, number)

    def live(self) -> bool:
        return self.tap is not None and not self.tap.closed

    # --- requests --------------------------------------------------------------------------

    def call(self, tool: str, arguments: dict[str, Any], number: int | None) -> EdgeRequest:
        request = EdgeRequest(next(self.ids), tool, number)
        self.requests[request.id] = request
        params: dict[str, Any] = {"name": tool, "arguments": arguments}
        if self.revision == "2026-07-28":
            params["_meta"] = {
                **META,
                "io.modelcontextprotocol/clientInfo": {"name": self.label, "version": "1"},
            }
        self.feed({"jsonrpc": "2.0", "id": request.id, "method": "tools/call", "params": params})
        return request

    def cancel(self, request: EdgeRequest) -> None:
        if request.number is not None and request.number not in self.sent.values():
            self.world.oracle.unsent_cancelled.add(request.number)
        elif request.number is not None and not request.responses:
            sequences = [s for s, n in self.sent.items() if n == request.number]
            if sequences and not set(sequences) & self.started:
                STATS["wire race: Cancels that crossed their Started"] += 1
        request.cancelled = True
        params = {"requestId": request.id, "reason": "fuzz"}
        self.feed({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": params})

    def collect(self) -> None:
        while True:
            try:
                line = self.lines.receive_nowait()
            except (trio.WouldBlock, trio.EndOfChannel):
                return
            message = json.loads(line)
            request = self.requests.get(message.get("id"))  # type: ignore[arg-type]
            if request is not None and ("result" in message or "error" in message):
                self.world.oracle.edge_answered(self, request, message)

    def learn(self, request: EdgeRequest, result: dict[str, Any]) -> None:
        structured = result.get("structuredContent") or {}
        if request.tool != "tabs_create_mcp" or "tabId" not in structured:
            return
        workspace = structured.get("workspaceId")
        if isinstance(workspace, str) and workspace not in self.workspaces:
            self.workspaces.append(workspace)
        self.tabs.append((workspace, structured["tabId"]))


# --- the raw bridge client -------------------------------------------------------------------


@attrs.define(eq=False)
class RawCall:
    sequence: int
    tool: str
    number: int | None
    connection: int
    work_id: str | None = None
    replies: list[Message] = attrs.Factory(list)
    outcomes: list[Outcome] = attrs.Factory(list)
    cancel_on_started: bool = False
    cancelled: bool = False


class RawClient:
    """Writes bridge frames by hand on its own connections, reopened (reattaching its
    workspace) whenever it needs one."""

    def __init__(self, world: WireWorld, index: int) -> None:
        self.world = world
        self.label = f"raw{index}"
        self.stream: MessageStream | None = None
        self.connection = 0
        self.sequences = itertools.count(1)
        self.calls: dict[int, RawCall] = {}
        self.by_work: dict[str, RawCall] = {}
        self.workspace: str | None = None
        self.workspace_sequences: set[int] = set()
        self.tabs: list[int] = []
        self.inbox: list[tuple[int, Message]] = []
        self.ended: set[int] = set()
        """Connections that ended (every one but the current)."""

    async def ensure_open(self) -> MessageStream:
        if self.stream is None:
            stream, _ = await open_bridge(self.world.endpoints, client_version="fuzz raw")
            self.stream = stream
            self.connection += 1
            self.world.tasks.start_soon(
                self._read, stream, self.connection, name=f"{self.label} reader"
            )
            sequence = next(self.sequences)
            self.workspace_sequences.add(sequence)
            await stream.send(
                OpenWorkspace(sequence=sequence, reattach=self.workspace, client_label=self.label)
            )
        return self.stream

    async def _read(self, stream: MessageStream, connection: int) -> None:
        try:
            while True:
                message = await stream.receive()
                self.inbox.append((connection, message))
                if isinstance(message, Started):
                    call = self.calls.get(message.sequence)
                    if call is not None and call.cancel_on_started:
                        call.cancelled = True  # the connector's own way: Cancel upon Started
                        await stream.send(Cancel(work_id=message.work_id, reason="fuzz"))
        except BridgeClosed:
            pass
        except (FrameError, BridgeProtocolError) as exc:
            self.world.oracle.broken(f"{self.label}: the service sent a bad frame: {exc!r}")

    def start_message(self, tool: str, arguments: dict[str, Any]) -> Start:
        workspace = None if tool == "update_plan" else self.workspace
        return Start(
            sequence=next(self.sequences),
            operation=tool,
            arguments=arguments,
            workspace_id=workspace,
            context=RequestContext(client_label=self.label),
        )

    async def start(self, tool: str, arguments: dict[str, Any], *, cancel_on_started: bool) -> None:
        stream = await self.ensure_open()
        message = self.start_message(tool, arguments)
        call = RawCall(message.sequence, tool, number_of(tool, arguments), self.connection)
        call.cancel_on_started = cancel_on_started
        self.calls[message.sequence] = call
        await stream.send(message)

    async def cancel(self, work_id: str) -> None:
        stream = await self.ensure_open()
        call = self.by_work.get(work_id)
        if call is not None:
            call.cancelled = True
        await stream.send(Cancel(work_id=work_id, reason="fuzz"))

    async def cut_start(self, tool: str, arguments: dict[str, Any], cut_at: int) -> None:
        """A Start of which only the first ``cut_at`` bytes go out, then the connection closes."""
        stream = await self.ensure_open()
        message = self.start_message(tool, arguments)
        frame = encode_frame(encode_message(message))
        number = number_of(tool, arguments)
        if number is not None:
            self.world.oracle.cut_numbers.add(number)
        STATS["wire race: writes cut part way (frame bytes then close)"] += 1
        part = frame[: cut_at % len(frame)]
        if part:
            await stream.stream.send_all(part)
        await self.close()

    async def close(self) -> None:
        if self.stream is not None:
            self.ended.add(self.connection)
            stream, self.stream = self.stream, None
            await stream.aclose()

    def deliver(self) -> None:
        inbox, self.inbox = self.inbox, []
        for connection, message in inbox:
            self.world.oracle.raw_read(self, connection, message)


# --- the oracle ---------------------------------------------------------------------------


class Oracle:
    """Every invariant, checked as facts arrive and at the end; counts each check that held."""

    def __init__(self, world: WireWorld) -> None:
        self.world = world
        self.violations: list[str] = []
        self.admissions: dict[str, Admission] = {}
        self.by_number: dict[int, Admission] = {}
        self.unsent_cancelled: set[int] = set()
        """Calls an MCP client cancelled before their Start left its connector."""
        self.unstarted_cancelled: set[int] = set()
        """Calls cancelled by their caller while the tool had not been entered."""
        self.claims: list[tuple[str, int, str]] = []
        """(client, call number, what its answer says did not happen)."""
        self.creates_refused: Counter[str] = Counter()
        """Per client: tabs_create_mcp calls answered as never run."""
        self.creates_asked: Counter[str] = Counter()
        self.cut_numbers: set[int] = set()
        """Calls whose Start only partly went out before its connection closed."""
        self.audited = 0

    # --- bookkeeping ------------------------------------------------------------------------

    def expect(self, name: str, ok: bool, detail: Any = "") -> None:
        if ok:
            INVARIANTS[name] += 1
        else:
            BROKEN[name] += 1
            self.violations.append(f"{name}: {detail}")

    def broken(self, detail: str) -> None:
        self.violations.append(detail)

    def raise_if_broken(self) -> None:
        if self.violations:
            raise InvariantBroken("\n".join(self.violations))

    # --- the service's side -----------------------------------------------------------------

    def admitted(self, session: TracingSession, message: Start, work_id: str) -> None:
        number = number_of(message.operation, message.arguments)
        admission = Admission(
            work_id, message.operation, number, message.context.client_label, session
        )
        self.expect("one-outcome", work_id not in self.admissions, f"{work_id} admitted twice")
        self.admissions[work_id] = admission
        session.admitted.append(admission)
        if number is not None:
            self.expect(
                "truthful", number not in self.cut_numbers, f"call {number}: a cut frame ran"
            )
            self.expect(
                "truthful",
                number not in self.unsent_cancelled,
                f"call {number} was cancelled before its Start left the connector, and ran",
            )
            self.by_number[number] = admission

    def cancel_arrived(self, session: TracingSession, work_id: str, *, active: bool) -> None:
        admission = self.admissions.get(work_id)
        if admission is None:
            return
        if admission.session is not session:
            STATS["wire race: Cancels for another connection's call (ignored)"] += 1
        elif active:
            admission.cancelled_by_caller = True
        else:
            STATS["wire race: Cancels that crossed their Outcome (ignored)"] += 1

    def posted(self, outcome: Outcome) -> None:
        admission = self.admissions.get(outcome.work_id)
        self.expect("one-outcome", admission is not None, f"Outcome for unknown {outcome.work_id}")
        if admission is None:
            return
        self.expect("one-outcome", not admission.outcomes, (outcome, admission.outcomes))
        admission.outcomes.append(outcome)

    def entered(self, effect: Effect) -> None:
        number = effect.number
        if number is None:
            return
        self.expect(
            "truthful",
            number not in self.unstarted_cancelled,
            f"call {number} ran after its caller cancelled it before it started",
        )
        for label, claimed, what in self.claims:
            if claimed == number and what == "entered":
                self.expect(
                    "truthful", False, f"call {number} ran after {label} was told it never ran"
                )

    def reaches_tab(self, effect: Effect) -> None:
        owner = self.world.tab_owner.get(effect.tab or 0)
        self.expect(
            "isolation",
            owner is not None
            and owner == effect.workspace
            and self.world.registry.verify_tab(effect.workspace, effect.tab or 0),
            f"{effect.work_id} of workspace {effect.workspace} reached tab {effect.tab} of {owner}",
        )

    def start_sent(self, client: EdgeClient, number: int | None) -> None:
        if number is not None and number in self.unsent_cancelled:
            self.expect(
                "truthful",
                False,
                f"{client.label}: call {number} went out after it was cancelled unsent",
            )

    def audit_step(self) -> None:
        records = self.world.audit
        for record in records[self.audited :]:
            admission = self.admissions.get(record.work_id)
            self.expect("audit-once", admission is not None, f"record for unknown {record}")
            if admission is None:
                continue
            self.expect("audit-once", not admission.records, (admission.records, record))
            admission.records.append(record)
            if record.outcome == "cancelled":
                # Only the call's own caller (a Cancel on its own stream, or that stream's end)
                # can cancel it: never another connection.
                self.expect(
                    "isolation",
                    admission.cancelled_by_caller or admission.stream_lost,
                    f"{record.work_id} cancelled, not by its own stream",
                )
            if admission.number is not None:
                effect = self.world.tools.by_number.get(admission.number)
                if admission.tool == "navigate":  # whatever tab it named, it reached only its own
                    self.expect(
                        "isolation",
                        effect is None
                        or self.world.tab_owner.get(effect.tab or 0) == effect.workspace,
                        (record, effect),
                    )
                if record.outcome == "ok":
                    self.expect(
                        "truthful",
                        effect is not None and effect.finished == "ok",
                        f"audited ok without its tool finishing: {record} {effect}",
                    )
                if admission.number in self.unstarted_cancelled:
                    self.expect("truthful", record.outcome != "ok", record)
        self.audited = len(records)

    # --- what clients are told --------------------------------------------------------------

    def said(self, label: str, number: int | None, tool: str, text: str) -> None:
        """An answer's words: what they say did not happen must not have happened."""
        what = claim_of(text)
        if what is None:
            return
        if number is None:
            if tool == "tabs_create_mcp" and what == "entered":
                self.creates_refused[label] += 1
            return
        self.claims.append((label, number, what))
        effect = self.world.tools.by_number.get(number)
        if what == "entered":
            self.expect(
                "truthful", effect is None, f"{label}: call {number} told it never ran: {text}"
            )
        else:
            self.expect(
                "truthful",
                effect is None or not effect.dispatched,
                f"{label}: call {number} told nothing was dispatched: {text}",
            )

    def succeeded(self, label: str, number: int | None, tool: str, structured: Any) -> None:
        """An answer that says the call succeeded: its tool finished, and succeeded."""
        if number is not None:
            effect = self.world.tools.by_number.get(number)
            self.expect(
                "truthful",
                effect is not None
                and effect.finished == "ok"
                and number not in self.unstarted_cancelled,
                f"{label}: call {number} reported ok: {effect}",
            )
        elif tool == "tabs_create_mcp":
            tab = (structured or {}).get("tabId")
            effect = self.world.tools.by_tab.get(tab or 0)
            self.expect(
                "truthful",
                effect is not None and effect.finished == "ok" and effect.label == label,
                f"{label}: a tab it was told of was never created for it: {tab}",
            )

    def edge_answered(
        self, client: EdgeClient, request: EdgeRequest, message: dict[str, Any]
    ) -> None:
        self.expect("one-outcome", not request.responses, (client.label, request, message))
        self.expect("one-outcome", not request.cancelled, f"answered after its cancel: {message}")
        request.responses.append(message)
        number, tool = request.number, request.tool
        error = message.get("error")
        if error is not None:
            data = error.get("data") or {}
            if error.get("code") == failures.OUTCOME_UNKNOWN:
                self.said(client.label, number, tool, str(data.get("detail", "")))
                if error.get("message") == failures.LOST_MESSAGE:
                    STATS["wire race: calls answered lost with their connection"] += 1
            else:  # not started: the service refused it, or it never left the connector
                self.said(client.label, number, tool, "nothing ran")
            return
        result = message["result"]
        text = " ".join(block.get("text", "") for block in result.get("content", []))
        if result.get("isError"):
            self.said(client.label, number, tool, text)
        else:
            self.succeeded(client.label, number, tool, result.get("structuredContent"))
            client.learn(request, result)

    def raw_read(self, client: RawClient, connection: int, message: Message) -> None:
        if isinstance(message, WorkspaceOpened):
            client.workspace = message.workspace_id
        elif isinstance(message, Fatal):
            self.broken(f"{client.label}: Fatal from the service: {message.message}")
        elif isinstance(message, Started | Rejected):
            if message.sequence in client.workspace_sequences:
                return
            call = client.calls.get(message.sequence)
            self.expect(
                "one-outcome",
                call is not None and not call.replies and call.connection == connection,
                (client.label, message, call),
            )
            if call is None:
                return
            call.replies.append(message)
            if isinstance(message, Started):
                call.work_id = message.work_id
                client.by_work[message.work_id] = call
            else:
                self.said(client.label, call.number, call.tool, "nothing ran")
        elif isinstance(message, Outcome):
            raw = client.by_work.get(message.work_id)
            self.expect(
                "one-outcome",
                raw is not None and raw.connection == connection and not raw.outcomes,
                (client.label, message, raw),
            )
            if raw is None:
                return
            raw.outcomes.append(message)
            text = _text(message.content)
            self.said(client.label, raw.number, raw.tool, text)
            if message.kind == "ok":
                self.succeeded(client.label, raw.number, raw.tool, message.structured)
                tab = (message.structured or {}).get("tabId")
                if raw.tool == "tabs_create_mcp" and isinstance(tab, int):
                    client.tabs.append(tab)

    def after_cancel(self, number: int | None) -> None:
        """The step that cancelled call ``number`` is over: had the tool not been entered yet,
        it never may be, and the call can never be reported a success."""
        admission = self.by_number.get(number) if number is not None else None
        if admission is None or number is None:
            return
        if number not in self.world.tools.by_number and number not in self.unstarted_cancelled:
            self.unstarted_cancelled.add(number)
            STATS["wire race: calls cancelled before their tool started"] += 1

    # --- the end ------------------------------------------------------------------------------

    def final_answers(self, edges: list[EdgeClient], raws: list[RawClient]) -> None:
        """Before the clients leave: each request has its one answer, each call on a
        connection still open its one reply and one Outcome, recorded as told."""
        for client in edges:
            for request in client.requests.values():
                expected = (0, 1) if request.cancelled else (1,)
                self.expect(
                    "one-outcome", len(request.responses) in expected, (client.label, request)
                )
                self._reported_as_told(request)
        for raw in raws:
            for call in raw.calls.values():
                if call.connection in raw.ended:
                    continue  # its connection ended: its answers were lost with it
                self.expect("one-outcome", len(call.replies) == 1, (raw.label, call))
                if call.work_id is not None:
                    self.expect("one-outcome", len(call.outcomes) == 1, (raw.label, call))
                    admission = self.admissions.get(call.work_id)
                    if call.outcomes and admission is not None and admission.records:
                        told = admission.records[0].reported
                        kind = call.outcomes[0].kind
                        allowed = {kind, None} if call.cancelled else {kind}
                        self.expect("audit-once", told in allowed, (admission.records[0], kind))

    def final(self) -> None:
        """Once everyone left: every call settled with one Outcome and one record, and no
        answer's words were belied after all."""
        tools = self.world.tools
        for admission in self.admissions.values():
            self.expect(
                "audit-once", len(admission.records) == 1, (admission.work_id, admission.records)
            )
            self.expect(
                "one-outcome", len(admission.outcomes) == 1, (admission.work_id, admission.outcomes)
            )
            record = admission.records[0] if admission.records else None
            if record is not None and admission.number in self.unstarted_cancelled:
                self.expect("truthful", record.outcome != "ok", record)
        for label, number, what in self.claims:
            effect = tools.by_number.get(number)
            ok = effect is None if what == "entered" else effect is None or not effect.dispatched
            self.expect(
                "truthful", ok, f"{label}: call {number} was told {what}, then ran: {effect}"
            )
        for number in self.unstarted_cancelled:
            self.expect(
                "truthful", number not in tools.by_number, f"call {number} ran after its cancel"
            )
        for number in self.unsent_cancelled | self.cut_numbers:
            self.expect("truthful", number not in self.by_number, f"call {number} ran unsent")
        entered_creates = Counter(e.label for e in tools.effects if e.tool == "tabs_create_mcp")
        for label, asked in self.creates_asked.items():
            self.expect(
                "truthful",
                entered_creates[label] <= asked - self.creates_refused[label],
                f"{label}: {entered_creates[label]} tabs_create ran, {asked} asked,"
                f" {self.creates_refused[label]} told they never ran",
            )

    def _reported_as_told(self, request: EdgeRequest) -> None:
        """The audit record's ``reported`` agrees with what an MCP client was shown."""
        admission = self.by_number.get(request.number) if request.number is not None else None
        if admission is None or not admission.records or request.cancelled or not request.responses:
            return
        reported = admission.records[0].reported
        message = request.responses[0]
        if "result" in message:
            kinds = {"tool_error", "denied", "held"} if message["result"].get("isError") else {"ok"}
            self.expect("audit-once", reported in kinds, (admission.records[0], message))
        elif message["error"].get("message") in (failures.UNKNOWN_MESSAGE,) or str(
            message["error"].get("message", "")
        ).startswith((failures.CANCELLED_LEAD, failures.CANCELLED_MESSAGE)):
            told = (message["error"].get("data") or {}).get("outcome")
            self.expect("audit-once", reported == told, (admission.records[0], message))


# --- the world and its walk ------------------------------------------------------------------


class WireWorld:
    """One example: the service, its clients, and the walk over them."""

    def __init__(self, draw: Callable[[Any, str], Any], steps: int) -> None:
        self._draw = draw
        self.steps = steps
        self.endpoints, self.secret = _instance()
        self.oracle = Oracle(self)
        self.tools = FakeTools(self)
        self.tab_owner: dict[int, str] = {}
        self.audit: list[AuditRecord] = []
        self.refusing = False
        self.numbers = itertools.count(1)
        self.edges: list[EdgeClient] = []
        self.retired: list[EdgeClient] = []
        self.raws: list[RawClient] = []
        self.clients_made = itertools.count(1)
        self.step_index = 0

    def draw(self, options: Sequence[Any], label: str) -> Any:
        return self._draw(_sampler(tuple(options)), label)

    # --- setup -----------------------------------------------------------------------------

    async def run(self, clock: trio.testing.MockClock) -> None:
        self.clock = clock
        self.registry = WorkspaceRegistry()
        self.scheduler = Scheduler()
        self.engine = TracingEngine(
            self,
            catalog=_catalog(),
            handlers=self.tools.handlers(),
            workspaces=self.registry,
            scheduler=self.scheduler,
            audit=self.audit.append,
        )
        self.streams = LiveStreams()
        parts = ServiceParts(
            catalog=_catalog(),
            workspaces=self.registry,
            scheduler=self.scheduler,
            engine=self.engine,
            browser=None,
        )
        self.server = BridgeServer(
            endpoints=self.endpoints, secret=self.secret, parts=parts, streams=self.streams
        )
        listener = bind_owner_only_socket(self.endpoints.edge_socket)
        self.token = trio.lowlevel.current_trio_token()
        self.hung: str | None = None
        self.ended = "still walking"
        try:
            async with trio.open_nursery() as tasks:
                self.tasks = tasks
                tasks.start_soon(self.server.serve, listener, name="bridge server")
                try:
                    await self._walk()
                    self.ended = "returned"
                except BaseException as exc:
                    self.ended = repr(exc)
                    if not isinstance(exc, AssertionError):
                        STATS["wire race: examples Hypothesis ended part way (no end checks)"] += 1
                    # Stopped part way (Hypothesis ends an example that draws past its budget,
                    # or a check failed): effects still held, and time, must let calls unwind.
                    for effect in self.tools.effects:
                        effect.release.set()
                    self.clock.autojump_threshold = 0
                    raise
                finally:
                    tasks.cancel_scope.cancel()
        finally:
            with trio.CancelScope(shield=True):
                await listener.aclose()
        if self.hung is not None:
            raise InvariantBroken(self.hung)

    def stop_hung(self) -> None:
        """Called from the watchdog thread's request: say where every task waits, then stop."""
        where = []
        root = trio.lowlevel.current_root_task()
        assert root is not None
        for task in _tasks_below(root):
            frames = [
                f"{f.f_code.co_filename.rsplit('/', 1)[-1]}:{line}"
                for f, line in task.iter_await_frames()
            ]
            where.append(f"{task.name}: {' > '.join(frames[-4:])}")
        self.hung = (
            f"the walk stopped making progress at step {self.step_index} ({self.ended}):\n"
            + "\n".join(where)
        )
        print(self.hung, file=sys.stderr, flush=True)
        self.tasks.cancel_scope.cancel()
        self.clock.autojump_threshold = 0  # shielded waits end at their own bounds

    async def _walk(self) -> None:
        for index in range(2):
            revision = self.draw(("2025-11-25", "2026-07-28"), f"client {index} speaks")
            self.edges.append(EdgeClient(self, next(self.clients_made), revision))
        self.raws.append(RawClient(self, next(self.clients_made)))
        await self._settle_step()
        for index in range(1, self.steps + 1):
            self.step_index = index
            action = self.draw(ACTIONS, f"step {index}")
            fault = await getattr(self, f"_{action}")()
            await self._settle_step()
            if fault:
                await self._fresh_call()
            STATS["wire race: steps"] += 1
        await self._finish()

    async def _settle_step(self) -> None:
        await trio.testing.wait_all_tasks_blocked()
        self._observe()

    def _observe(self) -> None:
        for client in [*self.edges, *self.retired]:
            client.collect()
        for raw in self.raws:
            raw.deliver()
        self.oracle.audit_step()
        self.oracle.raise_if_broken()

    # --- choices ----------------------------------------------------------------------------

    def _client(self) -> EdgeClient | RawClient:
        clients: list[EdgeClient | RawClient] = [*self.edges, *self.raws]
        return clients[self._draw(_index(len(clients)), "client")]

    def _choice(self, items: Sequence[Any], label: str) -> Any:
        return items[self._draw(_index(len(items)), label)] if items else None

    def _call_arguments(
        self, client: EdgeClient | RawClient
    ) -> tuple[str, dict[str, Any], int | None]:
        """A call as this client would make it: tool, arguments, and the walk's number."""
        tool = self.draw(
            ("navigate", "navigate", "navigate", "tabs_create_mcp", "update_plan"), "tool"
        )
        number = next(self.numbers)
        if tool == "update_plan":
            return tool, _plan_args(number), number
        if isinstance(client, EdgeClient):
            own = client.tabs
            workspaces = client.workspaces
        else:
            own = [(client.workspace, tab) for tab in client.tabs]
            workspaces = []
        if tool == "tabs_create_mcp":
            self.oracle.creates_asked[client.label] += 1
            arguments: dict[str, Any] = {}
            if (
                isinstance(client, EdgeClient)
                and workspaces
                and self.draw((True, False), "in a workspace it has")
            ):
                arguments["workspaceId"] = self._choice(workspaces, "which workspace")
            return tool, arguments, None
        whose = self.draw(("own", "own", "own", "foreign", "bogus"), "whose tab")
        workspace = self._choice(workspaces, "which workspace")
        if whose == "own" and own:
            workspace, tab = self._choice(own, "which tab")
        elif whose == "foreign" and self.tab_owner:
            tab = self._choice(sorted(self.tab_owner), "which tab")
        else:
            tab = BOGUS_TAB
        self.tools.behaviour[number] = self.draw(BEHAVIOURS, "behaviour")
        arguments = _navigate_args(number, tab)
        if isinstance(client, EdgeClient) and workspace is not None:
            arguments["workspaceId"] = workspace
        return tool, arguments, number

    def _open_calls(self, client: EdgeClient | RawClient) -> list[Any]:
        if isinstance(client, EdgeClient):
            return [r for r in client.requests.values() if not r.cancelled]
        return [c for c in client.calls.values() if c.work_id is not None and not c.cancelled]

    # --- actions (each returns whether it was a fault) --------------------------------------

    async def _call(self, *, cancel: bool = False) -> bool:
        client = self._client()
        tool, arguments, number = self._call_arguments(client)
        if isinstance(client, EdgeClient):
            request = client.call(tool, arguments, number)
            if cancel:  # in the same step: its Cancel crosses its Started on the wire
                client.cancel(request)
        else:
            await client.start(tool, arguments, cancel_on_started=cancel)
        if cancel:
            await self._settle_step()
            self.oracle.after_cancel(number)
        return False

    async def _call_and_cancel(self) -> bool:
        return await self._call(cancel=True)

    async def _cancel(self) -> bool:
        client = self._client()
        target = self._choice(self._open_calls(client), "which call")
        if target is None:
            return False
        await self._cancel_one(client, target)
        await self._settle_step()
        self.oracle.after_cancel(target.number)
        return False

    async def _cancel_one(self, client: EdgeClient | RawClient, target: Any) -> None:
        if isinstance(client, EdgeClient):
            client.cancel(target)
        else:
            await client.cancel(target.work_id)

    def _held(self) -> list[Effect]:
        return [
            e
            for e in self.tools.effects
            if e.behaviour in ("held", "waiting") and not e.release.is_set() and e.finished is None
        ]

    async def _release(self, *, cancel: bool = False) -> bool:
        effect = self._choice(self._held(), "which effect")
        if effect is None:
            return False
        effect.answer = self.draw(ANSWERS, "answer")
        effect.release.set()
        if cancel:  # in the same step: the Cancel and the Outcome cross on the wire
            owner = self._owner_of(effect)
            if owner is not None:
                await self._cancel_one(*owner)
        return False

    async def _release_and_cancel(self) -> bool:
        return await self._release(cancel=True)

    def _owner_of(self, effect: Effect) -> tuple[EdgeClient | RawClient, Any] | None:
        for client in [*self.edges, *self.raws]:
            if client.label == effect.label:
                for call in self._open_calls(client):
                    if call.number == effect.number:
                        return client, call
        return None

    async def _advance(self) -> bool:
        seconds = self.draw(SECONDS, "seconds")
        STATS["wire race: mock seconds advanced"] += int(seconds)
        await self._pass(seconds)
        return False

    async def _pass(self, seconds: float) -> None:
        self.clock.autojump_threshold = 0
        try:
            await trio.sleep(seconds)
        finally:
            self.clock.autojump_threshold = math.inf

    async def _cut_mid_write(self) -> bool:
        client = self._client()
        cut_at = self._draw(_CUTS, "cut after bytes")
        tool, arguments, number = self._call_arguments(client)
        if isinstance(client, EdgeClient):
            if client.live():
                assert client.tap is not None
                client.tap.cut_at = cut_at  # the next write (this call's Start, or one before)
            client.call(tool, arguments, number)
        else:
            await client.cut_start(tool, arguments, cut_at)
        return True

    async def _drop_stream(self) -> bool:
        client = self._client()
        if isinstance(client, EdgeClient):
            if not client.live():
                return False
            assert client.tap is not None
            await client.tap.aclose()
        else:
            await client.close()
        return True

    async def _foreign_cancel(self) -> bool:
        raw = self._choice(self.raws, "raw client")
        others = [w for w, a in self.oracle.admissions.items() if a.label != raw.label]
        work_id = self._choice(others, "whose call")
        if work_id is None:
            return False
        await raw.cancel(work_id)
        return True

    async def _refuse(self) -> bool:
        self.refusing = not self.refusing
        return False

    async def _restart_client(self) -> bool:
        index = self._draw(_index(len(self.edges)), "which client restarts")
        client = self.edges[index]
        await client.edge.shutdown("the fuzz client restarts")
        client.collect()
        self.retired.append(client)
        revision = self.draw(("2025-11-25", "2026-07-28"), "the new client speaks")
        self.edges[index] = EdgeClient(self, next(self.clients_made), revision)
        return True

    async def _browser_restart(self) -> bool:
        self.scheduler.browser_restarted(1)
        return False

    async def _probe(self) -> bool:
        return True

    async def _fresh_call(self) -> None:
        """After a fault: a new connection's ordinary call is served at once."""
        stream, _ = await open_bridge(self.endpoints, client_version="fuzz probe")
        got: list[Message] = []

        async def read() -> None:
            try:
                while True:
                    got.append(await stream.receive())
            except (BridgeClosed, FrameError, BridgeProtocolError):
                pass

        self.tasks.start_soon(read, name="fresh call reader")
        start = Start(
            sequence=1,
            operation="update_plan",
            arguments=_plan_args(next(self.numbers)),
            context=RequestContext(client_label="fresh"),
        )
        await stream.send(start)
        await trio.testing.wait_all_tasks_blocked()
        served = (
            len(got) == 2
            and isinstance(got[0], Started)
            and isinstance(got[1], Outcome)
            and got[1].kind == "ok"
            and got[1].work_id == got[0].work_id
        )
        self.oracle.expect("fresh-call", served, got)
        await stream.aclose()
        await self._settle_step()

    # --- the end --------------------------------------------------------------------------

    async def _finish(self) -> None:
        """Release everything, let time pass every bound, let every client leave; then every
        call has settled once, been recorded once and answered once, and no task is left."""
        self.refusing = False
        for effect in self._held():
            effect.release.set()
        await self._settle_step()
        await self._pass(400)
        await self._settle_step()
        oracle = self.oracle
        oracle.final_answers([*self.edges, *self.retired], self.raws)
        for client in self.edges:
            await client.edge.shutdown("the walk is over")
        for raw in self.raws:
            await raw.close()
        await self._pass(1)
        await self._settle_step()
        oracle.final()
        oracle.expect("no-leak", self.engine.active_work == 0, self.engine.active_work)
        oracle.expect("no-leak", len(self.streams) == 0, len(self.streams))
        oracle.expect(
            "no-leak",
            self.scheduler.active == 0 and self.scheduler.queued == 0,
            (self.scheduler.active, self.scheduler.queued),
        )
        pinned = {ws: e.pins for ws, e in self.registry._live.items() if e.pins}
        oracle.expect("no-leak", not pinned, pinned)
        left = [name for name in _task_names(self.tasks) if name not in ("bridge server",)]
        oracle.expect("no-leak", not left, f"tasks still running: {left}")
        oracle.raise_if_broken()
        STATS["wire race: calls admitted"] += len(oracle.admissions)
        STATS["wire race: edge connections"] += sum(
            c.connections for c in [*self.edges, *self.retired]
        )


WEIGHTS = {
    "call": 4,
    "cancel": 2,
    "call_and_cancel": 2,
    "release": 3,
    "release_and_cancel": 1,
    "advance": 2,
    "cut_mid_write": 1,
    "drop_stream": 1,
    "foreign_cancel": 1,
    "refuse": 1,
    "restart_client": 1,
    "browser_restart": 1,
    "probe": 1,
}
ACTIONS = tuple(name for name, weight in WEIGHTS.items() for _ in range(weight))
"""The walk's actions, each as often as its weight."""

_CUTS = st.integers(0, 48)


@functools.cache
def _sampler(options: tuple[Any, ...]) -> st.SearchStrategy[Any]:
    return st.sampled_from(options)


@functools.cache
def _index(size: int) -> st.SearchStrategy[int]:
    return st.integers(0, size - 1)


def _tasks(nursery: trio.Nursery) -> Iterator[trio.lowlevel.Task]:
    for task in nursery.child_tasks:
        yield task
        for child in task.child_nurseries:
            yield from _tasks(child)


def _tasks_below(task: trio.lowlevel.Task) -> Iterator[trio.lowlevel.Task]:
    for nursery in task.child_nurseries:
        yield from _tasks(nursery)


def _task_names(nursery: trio.Nursery) -> Iterator[str]:
    return (task.name for task in _tasks(nursery))


class ErrorLog(logging.Handler):
    """Errors logged while the walk runs; only a fake tool's own failure is expected."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.unexpected: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.msg == "tool %s failed (work %s)":
            return
        self.unexpected.append(record.getMessage())


def run_example(draw: Callable[[Any, str], Any], steps: int) -> None:
    """One example: a fresh service and clients, ``steps`` actions, then the end checks."""
    STATS["wire race: examples"] += 1
    world = WireWorld(draw, steps)
    errors = ErrorLog()
    root = logging.getLogger()
    root.addHandler(errors)
    quiet = [logging.getLogger(name) for name in ("ghostlight", "ghostlight_mcp_connector")]
    levels = [logger.level for logger in quiet]
    for logger in quiet:
        logger.setLevel(logging.ERROR)
    done = threading.Event()

    def watchdog() -> None:
        if not done.wait(HANG_SECONDS):
            try:
                trio.from_thread.run_sync(world.stop_hung, trio_token=world.token)
            except trio.RunFinishedError:
                pass

    threading.Thread(target=watchdog, name="wire race watchdog", daemon=True).start()
    try:
        clock = trio.testing.MockClock()
        trio.run(world.run, clock, clock=clock)
    except BaseExceptionGroup as group:
        raise _first(group) from None
    finally:
        done.set()
        root.removeHandler(errors)
        for logger, level in zip(quiet, levels, strict=True):
            logger.setLevel(level)
    assert not errors.unexpected, errors.unexpected


def _first(group: BaseExceptionGroup[Any]) -> BaseException:
    inner = group.exceptions[0]
    return _first(inner) if isinstance(inner, BaseExceptionGroup) else inner


__all__ = ["WireWorld", "run_example"]
