"""The service's browser endpoint: admits relays, links each to its slot, carries requests.

Each admitted relay connection is one task in ``serve``'s nursery. Requests are written by the
calling task (shielded per frame) and settled by the connection's reader task; replies are
accepted only from the connection the request went out on (``RequestBook``). ``stop_all`` (the
kill switch) tells every browser to answer what it is running at once, so shielded calls settle
promptly. Which slot a browser holds is the ``SlotTable``'s, where a request goes the
``Router``'s, how a workspace looks ``TabGroups``' and what tabs do on their own ``TabEvents``'.

Browsers know a workspace only by its browser key (``WorkspaceRegistry.browser_key``), never by
the handle its client holds: whatever speaks to this endpoint learns nothing it could present
on the bridge as a workspace.
"""

from __future__ import annotations

import logging
import os
from typing import Any

import attrs
import trio

from ..engine.contracts import left_unanswered
from ..transport.bridge import BrowserSummary
from ..transport.browser_link import MAX_FRAME_TO_CHROME, SERVICE_FRAME_CEILING, WIRE_MAJOR
from ..transport.endpoints import Endpoints
from ..transport.framing import FrameError
from ..transport.peercred import is_same_user
from ..transport.stream import BridgeClosed, MessageStream
from . import replies, wire
from .admission import HELLO_TIMEOUT, AdmissionRefused, ExtensionHello, WireSkew, admit
from .compat import skew_message
from .connection import BrowserConnection, LinkClosedBeforeSend
from .errors import BrowserFailure, BrowserRefused, BrowserUnavailable, OutcomeUnknown
from .ports import SurfaceScheduler, WorkspaceDirectory
from .request_book import LateAnswer, PendingCall, RequestBook
from .routing import FIRST_CALL_WAIT, Router
from .slots import SlotTable
from .tab_events import TabEvents
from .tab_groups import TabGroups
from .tab_journal import TabJournal
from .tabids import ForeignTabError, to_composite, to_native

log = logging.getLogger("ghostlight.browser")

__all__ = ["BrowserShore", "SurfaceScheduler", "WorkspaceDirectory"]

SILENCE_LIMIT = 15.0
"""Seconds a browser may send nothing while requests wait on it before it is pinged (and as
long again for the ping's answer)."""
_PING = "ping"

RESTARTED = "Browser restarted before responding"
DISCONNECTED = "Browser extension disconnected before responding"
NOT_SENT = "Browser extension disconnected; nothing was sent. Retry: it reconnects automatically"
RECONNECTED = "Browser extension reconnected before responding"


@attrs.frozen
class _LinkTerms:
    """What each admitted link is held to, and what its welcome says of this service."""

    hello_timeout: float
    silence_limit: float
    service_version: str


class BrowserShore:
    """Owns the browser socket and the links to browsers, and carries every browser request."""

    def __init__(
        self,
        endpoints: Endpoints,
        workspaces: WorkspaceDirectory,
        *,
        first_call_wait: float = FIRST_CALL_WAIT,
        hello_timeout: float = HELLO_TIMEOUT,
        service_version: str = "",
        scheduler: SurfaceScheduler | None = None,
        silence_limit: float = SILENCE_LIMIT,
    ) -> None:
        self._endpoints = endpoints
        self._workspaces = workspaces
        self._scheduler = scheduler
        self._slots = SlotTable()
        self._router = Router(self._slots, workspaces, endpoints.instance, first_call_wait)
        self._book = RequestBook()
        self._links = _LinkTerms(hello_timeout, silence_limit, service_version)
        self.tab_groups = TabGroups(workspaces)
        self.tab_journal = TabJournal()
        """Tabs opened from workspaces' pages and closed, for calls to report."""
        self.tab_events = TabEvents(workspaces, self.tab_groups, self.tab_journal, scheduler)
        self._nursery: trio.Nursery | None = None

    # --- public surface --------------------------------------------------------------------

    @property
    def connected_count(self) -> int:
        """How many browsers are attached right now."""
        return len(self._slots)

    @property
    def last_wire_refusal(self) -> str:
        """Why the latest extension of another wire major was refused (diagnostics)."""
        return self._router.last_wire_refusal

    def summaries(self) -> list[BrowserSummary]:
        """The attached browsers, for status reports and doctor."""
        now = trio.current_time()
        summaries = []
        for connection in self._slots.connections():
            waiting = self._book.waiting_on(connection)
            ping = connection.unanswered_ping_at
            summaries.append(
                BrowserSummary(
                    slot=connection.slot,
                    browser_id=connection.hello.browser_id,
                    generation=connection.generation,
                    extension_version=connection.hello.extension_version,
                    features=sorted(connection.features),
                    waiting=waiting,
                    silent_for=int(now - connection.heard_at) if waiting else 0,
                    unanswered_ping_for=None if ping is None else int(now - ping),
                )
            )
        return summaries

    def relay_pid(self, slot: int) -> int | None:
        """The process id the relay of a live slot reported (diagnostics and tests)."""
        connection = self._slots.live(slot)
        return connection.hello.relay_pid if connection is not None else None

    def slot_of_browser(self, browser_id: str) -> int | None:
        """The slot a browser profile holds for this service's lifetime, if it ever attached."""
        return self._slots.slot_of_browser(browser_id)

    async def wait_connected(self, count: int = 1) -> None:
        """Return once at least ``count`` browsers are attached (callers bound the wait)."""
        while self.connected_count < count:
            await self._slots.changed()

    async def wait_for_browser(self, workspace_id: Any, args: dict[str, Any]) -> None:
        """Wait, as a request would, until a browser for this workspace (or tab) is attached;
        raises ``BrowserUnavailable`` when none comes. Nothing is sent: a caller may run this
        before its effect, where a cancel still reaches the wait."""
        await self._router.connection_for(workspace_id, args, None)

    def group_presentation(self, workspace_id: Any) -> dict[str, str]:
        """The visible tab-group title and colour of a workspace (see ``TabGroups``)."""
        return self.tab_groups.presentation(workspace_id)

    async def serve(
        self,
        *,
        task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED,
    ) -> None:
        """Listen on the instance's browser socket (0600, same-uid peers only) until cancelled."""
        self._endpoints.ensure_private_dirs()
        path = self._endpoints.browser_socket
        sock = trio.socket.socket(trio.socket.AF_UNIX, trio.socket.SOCK_STREAM)
        try:
            path.unlink(missing_ok=True)
            await sock.bind(str(path))
            os.chmod(path, 0o600)
            sock.listen(16)
        except BaseException:
            sock.close()
            raise
        listener = trio.SocketListener(sock)
        try:
            async with trio.open_nursery() as nursery:
                self._nursery = nursery
                task_status.started()
                while True:
                    stream = await listener.accept()
                    nursery.start_soon(self._serve_connection, stream)
        finally:
            self._nursery = None
            with trio.CancelScope(shield=True):
                await listener.aclose()
            path.unlink(missing_ok=True)

    # --- requests --------------------------------------------------------------------------

    async def request(
        self,
        workspace_id: Any,
        op: str,
        args: dict[str, Any],
        *,
        timeout: float,  # noqa: ASYNC109 - the bound is part of the shore's contract
        slot: int | None = None,
        stop: trio.Event | None = None,
    ) -> dict[str, Any]:
        """Send one wire request and return its result with composite tab ids.

        Raises ``BrowserUnavailable`` or ``BrowserRefused`` when nothing was sent,
        ``BrowserError`` for an error reply and ``OutcomeUnknown`` when the frame went out but
        no reply can arrive. ``stop``: set when the call's caller cancels it; an extension that
        can stop one request is then asked to end this one's waits and answer now (a load
        wait: the navigation itself goes on), which raises ``BrowserStopped(by_caller=True)``.
        """
        connection = await self._router.connection_for(workspace_id, args, slot)
        skew = skew_message(connection.hello.extension_version)
        if skew is not None:
            raise BrowserRefused(skew)
        try:
            native_args = to_native(args, connection.slot)
        except ForeignTabError as exc:
            raise BrowserRefused(str(exc)) from None
        request_id = self._book.next_id()
        frame: dict[str, Any] = {
            "type": "request",
            "id": request_id,
            # The browser key, never the handle (the wire keeps the field's old name).
            "guid": None if workspace_id is None else self._workspaces.browser_key(workspace_id),
            "op": op,
            "args": native_args,
        }
        if workspace_id is not None:
            frame["workspace"] = self.tab_groups.sent(workspace_id)
        try:
            body = wire.encode(frame)
        except ValueError as exc:
            raise BrowserRefused(f"The request cannot be sent to the browser: {exc}") from None
        bodies = _frames_for(connection, body, request_id)
        pending = self._book.open(request_id, connection, probe=op == _PING)
        try:
            with trio.move_on_after(timeout):
                pending.sent = True
                try:
                    await connection.send_frames(bodies)
                except LinkClosedBeforeSend:
                    raise BrowserUnavailable(NOT_SENT) from None
                except BridgeClosed:
                    pending.fail(OutcomeUnknown(DISCONNECTED))
                if stop is None or wire.FEATURE_STOP_REQUEST not in connection.features:
                    await pending.done.wait()
                else:
                    await self._answer_or_stop(connection, pending, stop)
        finally:
            if self._book.close(pending):
                left_unanswered(pending.proof)
        return _answer(pending, timeout, connection.slot)

    async def _answer_or_stop(
        self, connection: BrowserConnection, pending: PendingCall, stop: trio.Event
    ) -> None:
        """Wait for the request's answer; if ``stop`` comes first, ask the extension to stop
        this one request, and go on waiting for the answer that then comes at once."""

        async def stop_when_asked() -> None:
            await stop.wait()
            pending.stop_asked = True
            frame = wire.stop_request_frame(pending.request_id, wire.CALLER_CANCELLED_REASON)
            await _send_notices(connection, [wire.encode(frame)])

        async with trio.open_nursery() as nursery:
            nursery.start_soon(stop_when_asked)
            await pending.done.wait()
            nursery.cancel_scope.cancel()

    def stop_all(self, reason: str = wire.KILL_SWITCH_REASON) -> int:
        """Send ``stop`` to every attached browser; returns how many were told.

        Synchronous so a governor listener can call it: the frames go out from the serving
        nursery, behind any frame already being written on each link. Every request written
        before the stop is answered by the extension (code ``stopped``); an extension without
        ``stopV1`` ignores the frame and its requests drain as before.
        """
        nursery = self._nursery
        if nursery is None:
            return 0
        connections = self._slots.connections()
        frames = [wire.encode(wire.stop_frame(reason))]
        for connection in connections:
            nursery.start_soon(_send_notices, connection, frames)
        if connections:
            log.warning("stopping browser work in %d browser(s): %s", len(connections), reason)
        return len(connections)

    def workspace_ended(self, workspace_id: Any) -> None:
        """A workspace is over (released or expired): tell the browsers, so the user sees its
        tab group marked ended instead of one that looks live. Its tabs stay open."""
        ended = self.tab_groups.ended(workspace_id)
        if ended is None:
            return  # nothing of it ever reached a browser
        # Kept for browsers that attach later (one whose link was down now, or restarted):
        # each is told on attaching; a browser that never had the workspace ignores it.
        for connection in self._slots.connections():
            self._tell_ended(connection, [ended])

    def _tell_ended(self, connection: BrowserConnection, ended: list[tuple[str, str]]) -> None:
        nursery = self._nursery
        if nursery is None or not ended:
            return
        frames = [
            wire.encode(wire.workspace_ended_frame(key, title, close_tabs=connection.hello.headless))
            for key, title in ended
        ]
        nursery.start_soon(_send_notices, connection, frames)

    # --- links -----------------------------------------------------------------------------

    async def _serve_connection(self, stream: trio.SocketStream) -> None:
        if not is_same_user(stream.socket):  # type: ignore[arg-type]
            log.warning("browser socket: refused a peer running as another user")
            await trio.aclose_forcefully(stream)
            return
        messages = MessageStream(stream, ceiling=SERVICE_FRAME_CEILING)
        try:
            hello = await admit(messages, within=self._links.hello_timeout)
        except AdmissionRefused as exc:
            if isinstance(exc, WireSkew):
                self._router.last_wire_refusal = str(exc)
                log.warning("browser socket: %s", exc)
            else:
                log.info("browser socket: dropped a connection: %s", exc)
            await trio.aclose_forcefully(stream)
            return
        connection = await self._attach(messages, hello)
        if connection is None:
            await trio.aclose_forcefully(stream)
            return
        try:
            async with trio.open_nursery() as link:
                link.start_soon(self._watch_silence, connection)
                await self._read_frames(connection)
                link.cancel_scope.cancel()
        finally:
            self._detach(connection)
            with trio.CancelScope(shield=True):
                await trio.aclose_forcefully(stream)

    async def _attach(
        self, messages: MessageStream, hello: ExtensionHello
    ) -> BrowserConnection | None:
        slot, restarted = self._slots.admit(hello)
        if restarted:
            log.info("browser %d restarted: purging its tab membership", slot)
            self._book.browser_restarted(slot, OutcomeUnknown(RESTARTED))
            self._workspaces.purge_slot(slot)
            if self._scheduler is not None:
                self._scheduler.browser_restarted(slot)
        self._router.browser_attached()
        previous = self._slots.take(slot)
        if previous is not None:
            self._book.link_lost(previous, OutcomeUnknown(RECONNECTED))
            await previous.abort()
        features = hello.features & frozenset(wire.SERVICE_FEATURES)
        connection = BrowserConnection(slot=slot, hello=hello, stream=messages, features=features)
        welcome = {
            "type": "welcome",
            "wire": WIRE_MAJOR,
            "slot": slot,
            "features": sorted(features),
            "serviceVersion": self._links.service_version,
            # Every other workspace the browser remembers is over (this service never had it:
            # it restarted since), so its group is marked ended instead of looking live. Browser
            # keys: whoever says hello here is told them, so they must not be handles.
            "liveWorkspaces": self._workspaces.live_browser_keys(),
        }
        # Published first: send_frames takes the (uncontended) link lock before yielding, so
        # the welcome still precedes any request frame on this link.
        self._slots.publish(connection)
        try:
            await connection.send_frames([wire.encode(welcome)])
        except BridgeClosed:
            self._detach(connection)
            return None
        log.info("browser %d attached (extension %s)", slot, hello.extension_version)
        self._tell_ended(connection, self.tab_groups.all_ended())
        skew = skew_message(hello.extension_version)
        if skew is not None:
            log.warning("browser %d: %s", slot, skew)
        return connection

    def _detach(self, connection: BrowserConnection) -> None:
        connection.closed = True
        if self._slots.unlist(connection):
            log.info("browser %d detached", connection.slot)
        self._book.link_lost(connection, OutcomeUnknown(DISCONNECTED))

    async def _watch_silence(self, connection: BrowserConnection) -> None:
        """While requests wait on a browser that has sent nothing for ``silence_limit``, ask it
        whether it answers at all (a ping its extension answers at once, however busy a page
        keeps a call), so ``ghostlight status`` can tell a slow page from a browser or native
        host that stopped answering. It only reports: each call keeps its own bound."""
        limit = self._links.silence_limit
        while True:
            await trio.sleep(limit / 3)
            now = trio.current_time()
            if not self._book.waiting_on(connection) or now - connection.heard_at < limit:
                continue
            try:
                await self.request(None, _PING, {}, timeout=limit, slot=connection.slot)
            except OutcomeUnknown:
                if self._slots.live(connection.slot) is not connection:
                    return
                if connection.unanswered_ping_at is None:
                    connection.unanswered_ping_at = now
                    log.warning(
                        "browser %d answers nothing, not even a ping, with %d request(s) waiting;"
                        " it or its native host may be frozen",
                        connection.slot,
                        self._book.waiting_on(connection),
                    )
            except BrowserFailure:
                continue  # an error reply is an answer; a ping not sent tells nothing
            else:
                connection.unanswered_ping_at = None

    # --- inbound frames --------------------------------------------------------------------

    async def _read_frames(self, connection: BrowserConnection) -> None:
        while True:
            try:
                body = await connection.stream.receive_body()
            except BridgeClosed:
                return
            except FrameError as exc:
                log.warning("browser %d: bad framing, dropping link: %s", connection.slot, exc)
                return
            connection.heard_at = trio.current_time()
            connection.unanswered_ping_at = None
            try:
                frame = wire.decode(body)
            except wire.WireError as exc:
                log.warning("browser %d: ignored a malformed frame: %s", connection.slot, exc)
                continue
            self._on_frame(connection, frame)

    def _on_frame(self, connection: BrowserConnection, frame: dict[str, Any]) -> None:
        kind = frame.get("type")
        if kind in ("response", "error"):
            self._on_reply(connection, frame)
        elif kind == "focus":
            self._slots.touch_focus(connection.slot)
        else:
            self.tab_events.on_frame(connection.slot, frame)
        # every other frame type is ignored (additive wire)

    def _on_reply(self, connection: BrowserConnection, frame: dict[str, Any]) -> None:
        answered = self._book.reply_to(connection, frame.get("id"))
        if isinstance(answered, LateAnswer):
            # A request whose caller was told its outcome was unknown: now it is known.
            if self._scheduler is not None and self._scheduler.clear_proven(answered.proof):
                log.info(
                    "browser %d answered request %s after its caller was told the outcome was"
                    " unknown; what it stopped is free again",
                    connection.slot,
                    answered.request_id,
                )
        elif answered is not None:
            replies.settle(answered, frame, connection.slot)


def _answer(pending: PendingCall, timeout: float, slot: int) -> dict[str, Any]:
    """The result of a request its caller stopped waiting for, or its truthful failure."""
    if not pending.done.is_set():
        raise OutcomeUnknown(f"The browser did not answer within {timeout:g}s", proof=pending.proof)
    if isinstance(pending.failure, OutcomeUnknown):
        raise OutcomeUnknown(pending.failure.message, proof=pending.proof)
    if pending.failure is not None:
        raise pending.failure
    assert pending.result is not None
    result: dict[str, Any] = to_composite(pending.result, slot)
    return result


def _frames_for(connection: BrowserConnection, body: bytes, request_id: str) -> list[bytes]:
    """The frames that carry ``body``: itself, or chunks when it is over the Chrome margin."""
    if len(body) <= MAX_FRAME_TO_CHROME:
        return [body]
    if wire.FEATURE_CHUNKING not in connection.features:
        raise BrowserRefused(wire.TOO_OLD_FOR_LARGE)
    try:
        return wire.chunk_frames(body, request_id)
    except ValueError as exc:
        raise BrowserRefused(f"Request too large for the browser: {exc}") from None


async def _send_notices(connection: BrowserConnection, frames: list[bytes]) -> None:
    try:
        await connection.send_frames(frames)
    except BridgeClosed:
        pass  # the link is gone: its pending calls already failed as outcome unknown
