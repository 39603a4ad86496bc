"""Answers leave as they are made: a call's Started as it is admitted, before it runs, and its
Outcome as it settles, each with a direct write. No writer task runs here, so anything left
unsent would show."""

from __future__ import annotations

import socket

import trio
import trio.testing

from ghostlight_trio.catalog.registry import Catalog, load_specs
from ghostlight_trio.engine.contracts import ToolCall, ToolResult
from ghostlight_trio.engine.engine import WorkEngine
from ghostlight_trio.engine.session import WorkSession
from ghostlight_trio.scheduler import Scheduler
from ghostlight_trio.service.outbox import Outbox, stand_in
from ghostlight_trio.transport.bridge import Message, Outcome, RequestContext, Start, Started
from ghostlight_trio.transport.bridge_codec import decode_message
from ghostlight_trio.transport.framing import BRIDGE_FRAME_CEILING, FrameDecoder
from ghostlight_trio.transport.stream import MessageStream
from ghostlight_trio.workspace import WorkspaceRegistry

QUICK = {"domains": ["quick.example"], "approach": ["read"]}
SLOW = {"domains": ["slow.example"], "approach": ["read"]}
UNSENDABLE = {"domains": ["unsendable.example"], "approach": ["read"]}
OVERSIZED = {"domains": ["oversized.example"], "approach": ["read"]}


class _CountingStream(MessageStream):
    writes = 0

    def _write_now(self, data: bytes) -> int:
        self.writes += 1
        return super()._write_now(data)


class _Rig:
    def __init__(self, nursery: trio.Nursery) -> None:
        self.gate = trio.Event()

        async def plan(call: ToolCall) -> ToolResult:
            if "slow.example" in call.arguments["domains"]:
                await self.gate.wait()
            if "unsendable.example" in call.arguments["domains"]:
                return ToolResult.text("half a pair: \ud800")  # no encoder can carry it
            if "oversized.example" in call.arguments["domains"]:
                return ToolResult.text("x" * (BRIDGE_FRAME_CEILING + 1))  # past any frame
            return ToolResult.text("noted")

        engine = WorkEngine(
            catalog=Catalog(load_specs(), available={"update_plan"}),
            handlers={"update_plan": plan},
            workspaces=WorkspaceRegistry(),
            scheduler=Scheduler(),
        )
        ours, self.peer = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        self.stream = _CountingStream(
            trio.SocketStream(trio.socket.from_stdlib_socket(ours)), stand_in=stand_in
        )
        outbox = Outbox(self.stream)
        self.session: WorkSession = engine.open_session(nursery, outbox)
        self._sequence = 0

    def start(self, arguments: dict[str, list[str]]) -> None:
        self._sequence += 1
        self.session.start(Start(self._sequence, "update_plan", arguments, None, RequestContext()))

    async def start_together(self, *arguments: dict[str, list[str]]) -> list[Message]:
        """Admit one call per arguments at once, let them run until they wait: what was sent."""
        for each in arguments:
            self.start(each)
        await trio.testing.wait_all_tasks_blocked()
        return self.sent()

    def sent(self) -> list[Message]:
        """Every whole frame written so far, without waiting."""
        frames = FrameDecoder()
        while True:
            try:
                frames.feed(self.peer.recv(65536, socket.MSG_DONTWAIT))
            except BlockingIOError:
                break
        messages = []
        while (body := frames.next_frame()) is not None:
            messages.append(decode_message(body))
        assert not frames.has_partial_frame, "a frame was written in part"
        return messages


def _kinds(messages: list[Message]) -> list[str]:
    return [type(m).__name__ for m in messages]


def _started(messages: list[Message]) -> list[str]:
    """The work ids of the Started messages among ``messages``, in order."""
    return [m.work_id for m in messages if isinstance(m, Started)]


async def test_a_call_s_started_leaves_as_it_is_admitted_and_its_outcome_as_it_settles() -> None:
    async with trio.open_nursery() as nursery:
        rig = _Rig(nursery)
        rig.start(QUICK)
        [started] = rig.sent()  # before the call has run: the edge need not wait for it
        assert isinstance(started, Started)
        await trio.testing.wait_all_tasks_blocked()
        [outcome] = rig.sent()
        assert isinstance(outcome, Outcome) and outcome.work_id == started.work_id
        assert outcome.kind == "ok"
        assert rig.stream.writes == 2
        nursery.cancel_scope.cancel()


async def test_a_call_that_waits_answers_when_it_settles() -> None:
    async with trio.open_nursery() as nursery:
        rig = _Rig(nursery)
        rig.start(SLOW)
        [started] = rig.sent()
        assert isinstance(started, Started)
        await trio.testing.wait_all_tasks_blocked()
        assert rig.sent() == []
        rig.gate.set()
        await trio.testing.wait_all_tasks_blocked()
        [outcome] = rig.sent()
        assert isinstance(outcome, Outcome) and outcome.work_id == started.work_id
        assert outcome.kind == "ok"
        nursery.cancel_scope.cancel()


async def test_calls_admitted_together_each_answer_in_order() -> None:
    async with trio.open_nursery() as nursery:
        rig = _Rig(nursery)
        sent = await rig.start_together(QUICK, SLOW, QUICK)
        assert _kinds(sent) == ["Started", "Started", "Started", "Outcome", "Outcome"]
        started = _started(sent)
        # The quick calls' tasks run in the same scheduler pass, in either order.
        assert {m.work_id for m in sent if isinstance(m, Outcome)} == {started[0], started[2]}
        rig.gate.set()
        await trio.testing.wait_all_tasks_blocked()
        [last] = rig.sent()
        assert isinstance(last, Outcome) and last.work_id == started[1]
        nursery.cancel_scope.cancel()


async def test_an_answer_that_cannot_be_encoded_is_replaced_and_costs_no_other_answer() -> None:
    """The call gets one truthful error instead of its result, the other answers still go
    out, and the stream serves on."""
    async with trio.open_nursery() as nursery:
        rig = _Rig(nursery)
        sent = await rig.start_together(QUICK, UNSENDABLE, QUICK)
        outcomes = [m for m in sent if isinstance(m, Outcome)]
        assert _kinds(sent).count("Started") == 3 and len(outcomes) == 3
        kinds = {o.work_id: o.kind for o in outcomes}
        assert kinds == dict(zip(_started(sent), ["ok", "tool_error", "ok"], strict=True))
        [replaced] = [o.content[0].text for o in outcomes if o.kind == "tool_error"]
        assert "The call ended (ok), but its result could not be sent back" in replaced
        rig.start(QUICK)
        await trio.testing.wait_all_tasks_blocked()
        assert [getattr(m, "kind", None) for m in rig.sent()] == [None, "ok"]
        rig.start(OVERSIZED)  # too large for a frame: said so, with what to do about it
        await trio.testing.wait_all_tasks_blocked()
        [_, too_large] = rig.sent()
        assert too_large.kind == "tool_error"
        assert "it is larger than the connection carries (ask for less" in too_large.content[0].text
        nursery.cancel_scope.cancel()
