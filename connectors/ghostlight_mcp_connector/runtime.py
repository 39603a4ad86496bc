"""The Trio runtime around the sans-IO edge: stdin, stdout, the bridge, signals, shutdown.

Task tree (one nursery owns everything):
  stdout writer <- line queue <- Edge.apply <- stdin reader / bridge reader / shutdown
  bridge connection task (at most one): connect (start the service if needed), then a reader,
  a writer and a liveness watch for that connection; loss is reported to the edge, which
  reconnects lazily. The watch asks a service that has been silent for ``SILENCE_LIMIT``
  while answers are due whether it still answers at all, and drops the connection when it
  does not (a frozen service cannot keep its own reply deadline).
stdin EOF: requests already read are still answered (the bridge is kept, or connected if one
needs it) for at most ``EOF_GRACE``; what is still unanswered then gets an honest error. A client
that closed stdout as well has left: its calls are given up at once (cancelled at the service).
Shutdown (after that, or at once on parent exit, SIGTERM/SIGINT/SIGHUP): every request still
owed gets that error, the edge closes its streams and releases its workspace; queued lines and
bridge messages are flushed within a bound.
"""

from __future__ import annotations

import logging
import math
import os

import trio

from ghostlight_trio.transport.bridge import (
    BRIDGE_MINOR,
    Message,
    StatusReport,
    StatusRequest,
    for_peer,
)
from ghostlight_trio.transport.bridge_codec import BridgeProtocolError
from ghostlight_trio.transport.endpoints import Endpoints
from ghostlight_trio.transport.framing import FrameError
from ghostlight_trio.transport.stream import BridgeClosed, MessageStream

from . import jsonrpc
from .actions import Action, ConnectBridge, SendBridge, WriteMessage
from .bridge_client import BridgeConnector, ConnectFailed
from .era import EraRouter
from .parent_watch import wait_for_parent_exit
from .prelude import SHUTDOWN_SIGNALS, Handover
from .stdio import read_lines, stdout_gone, write_lines

SHUTDOWN_BUDGET = 1.5
"""Seconds allowed to flush closing lines and the workspace release before exiting."""
SILENCE_LIMIT = 15.0
"""Seconds a service may be silent while answers are due before it is asked whether it still
answers; it then has as long again to answer. The service answers a status request at once
even while its calls run, so a slow call never looks like a frozen service."""
SILENCE_ENV = "GHOSTLIGHT_MCP_SILENCE_LIMIT"
EOF_GRACE = 60.0
"""Seconds the requests already read when stdin closes may take to be answered: the service's
own reply deadline, by which it answers every call it started (outcome unknown if need be).
A script piping requests in closes stdin at once and needs the answers; an MCP client that
closes stdin to end the session sends SIGTERM when it tires of waiting, which ends at once."""
EOF_GRACE_ENV = "GHOSTLIGHT_MCP_EOF_GRACE"
STDOUT_CHECK_INTERVAL = 0.25
"""While answers are awaited after stdin closed, how often stdout is checked for a client that
closed it too (and so left)."""

_log = logging.getLogger(__name__)


class Edge:
    """Performs the router's actions; the only place where sans-IO meets Trio."""

    def __init__(
        self,
        router: EraRouter,
        connector: BridgeConnector,
        nursery: trio.Nursery,
        lines: trio.MemorySendChannel[bytes],
        *,
        silence_limit: float = SILENCE_LIMIT,
    ) -> None:
        self.router = router
        self._silence_limit = silence_limit
        self._heard_at = 0.0
        """When the current connection last brought a message."""
        self._connector = connector
        self._nursery = nursery
        self._lines = lines
        self._bridge_out: trio.MemorySendChannel[Message] | None = None
        self._closing = False
        self._connection_done = trio.Event()
        """Unset exactly while the (single) connection task runs."""
        self._connection_done.set()
        self._connection_scope = trio.CancelScope()
        self._connect_again: bool | None = None
        """Asked to connect while the last connection was ending: whether it may launch."""
        self._service_minor = BRIDGE_MINOR
        """The bridge minor the connected service speaks (what it can read)."""
        self._answered: trio.Event | None = None
        """After stdin ended with requests owed an answer: set once none is owed any more."""

    def apply(self, actions: list[Action]) -> None:
        for action in actions:
            if isinstance(action, WriteMessage):
                try:
                    self._lines.send_nowait(jsonrpc.encode(action.payload))
                except (trio.ClosedResourceError, trio.BrokenResourceError):
                    _log.debug("stdout is closed; dropped a line")
            elif isinstance(action, SendBridge):
                self._send_bridge(action.message)
            elif isinstance(action, ConnectBridge):
                self._start_connection(action.launch)
        if self._answered is not None and not self.router.owed():
            self._answered.set()

    def _send_bridge(self, message: Message) -> None:
        if self._bridge_out is None:
            _log.debug("no bridge connection; dropped %s", type(message).__name__)
            return
        try:
            self._bridge_out.send_nowait(for_peer(message, self._service_minor))
        except (trio.ClosedResourceError, trio.BrokenResourceError):
            _log.debug("bridge connection closing; dropped %s", type(message).__name__)

    def _start_connection(self, launch: bool = True) -> None:
        if self._closing:
            return
        if not self._connection_done.is_set():
            # Asked while the last connection is still ending (a handler that reconnects at
            # once when told of the loss): the ask must not be lost, or the link would wait
            # in "connecting" forever. It is served as soon as that task is done.
            self._connect_again = launch or bool(self._connect_again)
            return
        self._connection_done = trio.Event()
        self._connection_scope = trio.CancelScope()
        self._nursery.start_soon(self._connection, launch)

    async def _connection(self, launch: bool) -> None:
        try:
            with self._connection_scope:
                await self._connect_and_serve(launch)
        finally:
            self._connection_done.set()
            again, self._connect_again = self._connect_again, None
            if again is not None:
                self._start_connection(again)

    async def _connect_and_serve(self, launch: bool) -> None:
        try:
            stream, hello = await self._connector.connect(launch=launch)
        except ConnectFailed as exc:
            self.apply(self.router.bridge_failed(str(exc)))
            return
        if self._closing:  # nothing was sent on it yet, so there is nothing to flush
            with trio.CancelScope(shield=True):
                await stream.aclose()
            return
        _log.info("bridge connected to %s", hello.service_version or "the service")
        self._service_minor = hello.bridge_minor
        send, receive = trio.open_memory_channel[Message](math.inf)
        self._bridge_out = send
        self.apply(self.router.bridge_connected())
        self._heard_at = trio.current_time()
        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._bridge_writer, stream, receive, nursery.cancel_scope)
                nursery.start_soon(self._watch_silence, nursery.cancel_scope)
                await self._bridge_reader(stream)
                nursery.cancel_scope.cancel()
        finally:
            self._bridge_out = None
            with trio.CancelScope(shield=True):
                await stream.aclose()
        if not self._closing:
            _log.warning("bridge connection lost")
            self.apply(self.router.bridge_lost())

    async def _bridge_reader(self, stream: MessageStream) -> None:
        while True:
            try:
                message = await stream.receive()
            except (BridgeClosed, FrameError, BridgeProtocolError) as exc:
                _log.info("bridge closed: %s", exc)
                return
            self._heard_at = trio.current_time()
            if not isinstance(message, StatusReport):  # the silence watch's answer
                self.apply(self.router.receive_bridge(message))

    async def _watch_silence(self, connection: trio.CancelScope) -> None:
        """End a connection whose service stopped answering while answers are due (it was
        frozen or stopped): its calls then end as outcome unknown, and the next request
        reconnects (and is told at once if the service still does not answer)."""
        limit = self._silence_limit
        while True:
            await trio.sleep(limit / 3)
            if not self.router.awaiting_service():
                continue
            if trio.current_time() - self._heard_at < limit:
                continue
            asked = trio.current_time()
            self._send_bridge(StatusRequest(sequence=0))
            await trio.sleep(limit)
            if self._heard_at < asked:
                _log.warning(
                    "the service has not answered for %.0f s, not even a status request; it may"
                    " be frozen or stopped. Dropping the connection: its calls end as outcome"
                    " unknown",
                    trio.current_time() - self._heard_at,
                )
                connection.cancel()
                return

    async def _bridge_writer(
        self,
        stream: MessageStream,
        messages: trio.MemoryReceiveChannel[Message],
        scope: trio.CancelScope,
    ) -> None:
        """Send in order; when the queue is closed (shutdown) end the whole connection."""
        try:
            async for message in messages:
                await stream.send(message)
        except BridgeClosed as exc:
            _log.info("bridge write failed: %s", exc)
        scope.cancel()

    async def drain(self, grace: float) -> None:
        """stdin ended: answer the requests already read before exiting (a script pipes its
        requests in and closes stdin at once), waiting at most ``grace`` seconds for them."""
        self.apply(self.router.input_ended())
        owed = self.router.owed()
        if not owed:
            _log.info("stdin closed; shutting down")
            return
        _log.info(
            "stdin closed with %d request(s) still unanswered; waiting up to %g s for their"
            " answers before shutting down",
            owed,
            grace,
        )
        answered = self._answered = trio.Event()
        with trio.move_on_after(grace):
            while not await _set_within(answered, STDOUT_CHECK_INTERVAL):
                if stdout_gone():
                    # The client closed both pipes (or died): no answer can reach it, so its
                    # calls are given up now, which cancels them at the service (recorded as
                    # never reported), instead of running on for a client that left.
                    _log.info("stdout closed too: the client is gone; not waiting for answers")
                    self.give_up("the client closed its input and output")
                    return
        if self._closing:  # a signal or the parent's exit came first; shutdown answers
            return
        if answered.is_set():
            _log.info("every request read has been answered; shutting down")
        else:
            self.give_up(f"stdin closed and {grace:g} s passed")

    def give_up(self, reason: str) -> None:
        """Answer every request still owed with an honest error: the process is ending."""
        owed = self.router.owed()
        if owed:
            _log.warning("%s: answering %d request(s) with an error", reason, owed)
            self.apply(self.router.give_up(reason))

    async def shutdown(self, reason: str) -> None:
        """Answer what is still owed, close streams, release the workspace, then flush what
        is queued."""
        self._closing = True
        self.give_up(reason)
        self.apply(self.router.close())
        if self._bridge_out is not None:
            self._bridge_out.close()
        else:
            # Still connecting: nothing has gone out on that connection, so stop waiting for it.
            self._connection_scope.cancel()
        self._lines.close()
        await self._connection_done.wait()


async def _set_within(event: trio.Event, seconds: float) -> bool:
    """Whether ``event`` is set, waiting for it at most ``seconds``."""
    with trio.move_on_after(seconds):
        await event.wait()
    return event.is_set()


def _seconds_from_env(name: str, default: float) -> float:
    """The positive number of seconds the environment variable ``name`` gives, else
    ``default`` (tests shorten limits this way)."""
    try:
        value = float(os.environ.get(name, ""))
    except ValueError:
        return default
    return value if math.isfinite(value) and value > 0 else default


def silence_limit() -> float:
    """``SILENCE_LIMIT``, or what ``GHOSTLIGHT_MCP_SILENCE_LIMIT`` gives instead."""
    return _seconds_from_env(SILENCE_ENV, SILENCE_LIMIT)


def eof_grace() -> float:
    """``EOF_GRACE``, or what ``GHOSTLIGHT_MCP_EOF_GRACE`` gives instead."""
    return _seconds_from_env(EOF_GRACE_ENV, EOF_GRACE)


class _Stop:
    """Why the process ends; the first reason given is kept (it goes into the errors of
    requests that end unanswered)."""

    def __init__(self) -> None:
        self.event = trio.Event()
        self.reason = ""

    def set(self, reason: str) -> None:
        if not self.event.is_set():
            self.reason = reason
            self.event.set()


async def _wait_for_signal(early: list[int]) -> int:
    with trio.open_signal_receiver(*SHUTDOWN_SIGNALS) as signals:
        if early:
            _log.info("received signal %d before the runtime started; shutting down", early[0])
            return early[0]
        signum: int = await anext(signals)
        _log.info("received signal %d; shutting down", signum)
        return signum


async def run(endpoints: Endpoints, router: EraRouter, handover: Handover) -> None:
    """Serve one MCP client on stdin/stdout until it goes away; ``handover`` is where the
    prelude left off (lines already answered, actions still to perform)."""
    lines_send, lines_receive = trio.open_memory_channel[bytes](math.inf)
    stop = _Stop()
    stdout_done = trio.Event()

    async def stdout_writer() -> None:
        try:
            if not handover.stdout_gone:  # else the prelude already met a stdout that is gone
                await write_lines(lines_receive)
        finally:
            stdout_done.set()
            stop.set("stdout closed")

    async def stdin_reader(edge: Edge) -> None:
        if not handover.at_eof:  # a terminal's end of input is not sticky: never read past it
            await read_lines(lambda line: edge.apply(router.receive_line(line)), handover.splitter)
        await edge.drain(eof_grace())
        stop.set("stdin closed")

    async def parent_watch() -> None:
        await wait_for_parent_exit()
        _log.info("the parent process exited; shutting down")
        stop.set("the parent process exited")

    async def signal_watch() -> None:
        signum = await _wait_for_signal(handover.signals)
        stop.set(f"the connector was stopped (signal {signum})")

    async with trio.open_nursery() as nursery:
        edge = Edge(
            router, BridgeConnector(endpoints), nursery, lines_send, silence_limit=silence_limit()
        )
        nursery.start_soon(stdout_writer)
        edge.apply(handover.pending)
        nursery.start_soon(stdin_reader, edge)
        nursery.start_soon(parent_watch)
        nursery.start_soon(signal_watch)
        await stop.event.wait()
        with trio.move_on_after(SHUTDOWN_BUDGET):
            await edge.shutdown(stop.reason)
            await stdout_done.wait()
        nursery.cancel_scope.cancel()
