"""The service's browser endpoint: admits relays, keeps one slot per profile, routes requests.

Each admitted relay connection is one task in ``serve``'s nursery. Requests are written by the
calling task (shielded per frame) and settled by the connection's reader task; replies are
accepted only from the connection the request went out on. ``stop_all`` (the kill switch) tells
every browser to answer what it is running at once, so shielded calls settle promptly.

Browsers know a workspace only by its browser key (``WorkspaceRegistry.browser_key``), never by
the handle its client holds: whatever speaks to this endpoint learns nothing it could present
on the bridge as a workspace.
"""

from __future__ import annotations

import itertools
import logging
import os
from collections import OrderedDict
from collections.abc import Iterable
from typing import Any, Protocol

import trio

from ..engine.contracts import left_unanswered
from ..scheduler import TabSurface
from ..transport.bridge import BrowserSummary
from ..transport.browser_link import MAX_FRAME_TO_CHROME, SERVICE_FRAME_CEILING, WIRE_MAJOR
from ..transport.endpoints import DEFAULT_INSTANCE, Endpoints
from ..transport.framing import FrameError
from ..transport.peercred import is_same_user
from ..transport.stream import BridgeClosed, MessageStream
from ..workspace.registry import Presentation
from ..workspace.tab_ids import compose_tab_id, is_native_tab_id, slot_of
from . import wire
from .admission import HELLO_TIMEOUT, AdmissionRefused, ExtensionHello, WireSkew, admit
from .compat import skew_message
from .connection import BrowserConnection, LinkClosedBeforeSend, PendingCall
from .errors import (
    BrowserError,
    BrowserFailure,
    BrowserRefused,
    BrowserStopped,
    BrowserUnavailable,
    OutcomeUnknown,
)
from .tab_journal import TabJournal
from .tabids import ForeignTabError, rewrite_text, to_composite, to_native

log = logging.getLogger("ghostlight.browser")

__all__ = ["BrowserShore"]

FIRST_CALL_WAIT = 5.0
"""How long a call waits for a browser to attach before reporting it unavailable."""
SILENCE_LIMIT = 15.0
"""Seconds a browser may send nothing while requests wait on it before it is pinged (and as
long again for the ping's answer)."""
_PING = "ping"
GROUP_TITLE_PREFIX = "Ghostlight · "
GROUP_COLORS = ("blue", "red", "yellow", "green", "pink", "purple", "cyan", "orange")
"""Chrome's tab-group colours a live workspace may get (grey marks an ended one)."""
ENDED_SUFFIX = " (ended)"
_KNOWN_WORKSPACES = 256
MAX_UNANSWERED = 256
"""Timed-out requests remembered for their late answer; older ones stay quarantined until
their tab closes or their browser restarts."""
_ERROR_HOPS = frozenset({"extension", "cdp", "page"})

RESTARTED = "Browser restarted before responding"
DISCONNECTED = "Browser extension disconnected before responding"
NOT_SENT = "Browser extension disconnected; nothing was sent. Retry: it reconnects automatically"
RECONNECTED = "Browser extension reconnected before responding"
UNAVAILABLE = (
    "No browser is connected to Ghostlight ({waited})."
    " Start one with `ghostlight browser launch{instance}`, or load the Ghostlight extension in"
    " Chromium and check that its native host is installed"
)


class WorkspaceDirectory(Protocol):
    """The parts of the workspace registry the browser shore uses."""

    def owned_tabs(self, ws: Any) -> frozenset[int]: ...
    def adopt_tabs(self, ws: Any, ids: Iterable[int]) -> bool: ...
    def owner_of(self, composite_id: int) -> Any: ...
    def tab_closed(self, composite_id: int) -> None: ...
    def tab_released(self, composite_id: int) -> bool: ...
    def purge_slot(self, slot: int) -> None: ...
    def presentation(self, ws: Any) -> Presentation: ...
    def browser_key(self, ws: Any) -> str: ...
    def live_browser_keys(self) -> list[str]: ...


class SurfaceScheduler(Protocol):
    """The scheduler hooks that let browser facts clear moot quarantines."""

    def surface_destroyed(self, key: TabSurface) -> None: ...
    def browser_restarted(self, slot: int) -> None: ...
    def clear_proven(self, proof: str) -> bool: ...


class BrowserShore:
    """Owns the browser socket, the slot table and every in-flight browser request."""

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
        self._silence_limit = silence_limit
        self._scheduler = scheduler
        self._workspaces = workspaces
        self._first_call_wait = first_call_wait
        self._none_since: float | None = None
        """When the last full wait for a browser began that ended with none attached (None
        once one attaches): for one wait's length after it, calls queued behind it fail at
        once instead of each waiting in turn."""
        self._hello_timeout = hello_timeout
        self._service_version = service_version
        self._slots: dict[str, int] = {}
        self._generations: dict[int, str] = {}
        self._live: dict[int, BrowserConnection] = {}
        self._focus: list[int] = []
        self._pending: dict[str, PendingCall] = {}
        self._unanswered: OrderedDict[str, PendingCall] = OrderedDict()
        """Requests that went out and timed out unanswered, newest last (bounded): a late
        answer to one of them, on the link it was sent on, is the proof that its outcome is
        known, and lifts the quarantine it caused."""
        self._request_ids = itertools.count(1)
        self._changed = trio.Event()
        self.tab_journal = TabJournal()
        """Tabs opened from workspaces' pages and closed, for calls to report."""
        self._known_workspaces: OrderedDict[Any, str] = OrderedDict()
        """Workspaces recently sent to a browser, with their group's title (most recent last)."""
        self._ended: OrderedDict[str, str] = OrderedDict()
        """Browser keys of workspaces that ended, with their ended group title, for browsers
        attaching later.
        An extension that reads the welcome's ``liveWorkspaces`` needs no replay; an older one
        (a browser still running the extension it loaded before an update) does."""
        self._nursery: trio.Nursery | None = None
        self.last_wire_refusal = ""
        """Why the latest extension of another wire major was refused (diagnostics)."""

    # --- public surface --------------------------------------------------------------------

    @property
    def connected_count(self) -> int:
        """How many browsers are attached right now."""
        return len(self._live)

    def summaries(self) -> list[BrowserSummary]:
        """The attached browsers, for status reports and doctor."""
        now = trio.current_time()
        summaries = []
        for connection in self._live.values():
            waiting = self._waiting_on(connection)
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

    def _waiting_on(self, connection: BrowserConnection) -> int:
        """Requests sent on the link that still wait for their answer (pings not counted)."""
        return sum(
            1
            for pending in self._pending.values()
            if pending.connection is connection and pending.sent and not pending.probe
        )

    def relay_pid(self, slot: int) -> int | None:
        """The process id the relay of a live slot reported (diagnostics and tests)."""
        connection = self._live.get(slot)
        return connection.hello.relay_pid if connection is not None else None

    def slot_of_browser(self, browser_id: str) -> int | None:
        """The slot a browser profile holds for this service's lifetime, if it ever attached."""
        return self._slots.get(browser_id)

    async def wait_connected(self, count: int = 1) -> None:
        """Return once at least ``count`` browsers are attached (callers bound the wait)."""
        while self.connected_count < count:
            await self._changed.wait()

    async def serve(
        self,
        *,
        task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED,  # type: ignore[name-defined]
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
        connection = await self._connection_for(workspace_id, args, slot)
        skew = skew_message(connection.hello.extension_version)
        if skew is not None:
            raise BrowserRefused(skew)
        try:
            native_args = to_native(args, connection.slot)
        except ForeignTabError as exc:
            raise BrowserRefused(str(exc)) from None
        request_id = f"r{next(self._request_ids)}"
        frame: dict[str, Any] = {
            "type": "request",
            "id": request_id,
            # The browser key, never the handle (the wire keeps the field's old name).
            "guid": None if workspace_id is None else self._workspaces.browser_key(workspace_id),
            "op": op,
            "args": native_args,
        }
        if workspace_id is not None:
            presentation = self.group_presentation(workspace_id)
            self._remember_workspace(workspace_id, presentation["groupTitle"])
            frame["workspace"] = presentation
        try:
            body = wire.encode(frame)
        except ValueError as exc:
            raise BrowserRefused(f"The request cannot be sent to the browser: {exc}") from None
        bodies = self._frames_for(connection, body, request_id)
        pending = PendingCall(
            connection, proof=f"browser:{connection.slot}:{request_id}", probe=op == _PING
        )
        self._pending[request_id] = pending
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
                    await self._answer_or_stop(request_id, pending, stop)
        finally:
            self._pending.pop(request_id, None)
            if pending.sent and not pending.done.is_set():
                self._remember_unanswered(request_id, pending)
                left_unanswered(pending.proof)
        if not pending.done.is_set():
            raise OutcomeUnknown(
                f"The browser did not answer within {timeout:g}s", proof=pending.proof
            )
        if isinstance(pending.failure, OutcomeUnknown):
            raise OutcomeUnknown(pending.failure.message, proof=pending.proof)
        if pending.failure is not None:
            raise pending.failure
        assert pending.result is not None
        result: dict[str, Any] = to_composite(pending.result, connection.slot)
        return result

    async def _answer_or_stop(self, request_id: str, pending: PendingCall, stop: trio.Event) -> None:
        """Wait for the request's answer; if ``stop`` comes first, ask the extension to stop
        this one request, and go on waiting for the answer that then comes at once."""

        async def stop_when_asked() -> None:
            await stop.wait()
            pending.stop_asked = True
            frame = wire.stop_request_frame(request_id, wire.CALLER_CANCELLED_REASON)
            await self._send_notices(pending.connection, [wire.encode(frame)])

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
        connections = list(self._live.values())
        for connection in connections:
            nursery.start_soon(self._send_stop, connection, reason)
        if connections:
            log.warning("stopping browser work in %d browser(s): %s", len(connections), reason)
        return len(connections)

    async def _send_stop(self, connection: BrowserConnection, reason: str) -> None:
        await self._send_notices(connection, [wire.encode(wire.stop_frame(reason))])

    @staticmethod
    async def _send_notices(connection: BrowserConnection, frames: list[bytes]) -> None:
        try:
            await connection.send_frames(frames)
        except BridgeClosed:
            pass  # the link is gone: its pending calls already failed as outcome unknown

    def group_presentation(self, workspace_id: Any) -> dict[str, str]:
        """The visible tab-group title and colour of a workspace (presentation only, never
        routing): the client's label, numbered when other live workspaces share it, and a
        colour no other live workspace has while there are enough."""
        try:
            shown = self._workspaces.presentation(workspace_id)
        except Exception:  # a missing presentation must never fail a browser call
            return {"groupTitle": "Ghostlight"}
        title = GROUP_TITLE_PREFIX + shown.label if shown.label else "Ghostlight"
        if shown.ordinal > 1:
            title += f" {shown.ordinal}"
        return {"groupTitle": title, "groupColor": GROUP_COLORS[shown.hue % len(GROUP_COLORS)]}

    def workspace_ended(self, workspace_id: Any) -> None:
        """A workspace is over (released or expired): tell the browsers, so the user sees its
        tab group marked ended instead of one that looks live. Its tabs stay open."""
        title = self._known_workspaces.pop(workspace_id, None)
        if title is None:
            return  # nothing of it ever reached a browser
        key = self._workspaces.browser_key(workspace_id)
        # Kept for browsers that attach later (one whose link was down now, or restarted):
        # each is told on attaching; a browser that never had the workspace ignores it.
        ended = self._ended
        ended[key] = title + ENDED_SUFFIX
        while len(ended) > _KNOWN_WORKSPACES:
            ended.popitem(last=False)
        for connection in list(self._live.values()):
            self._tell_ended(connection, [(key, ended[key])])

    def _tell_ended(self, connection: BrowserConnection, ended: list[tuple[str, str]]) -> None:
        nursery = self._nursery
        if nursery is None or not ended:
            return
        frames = [
            wire.encode(wire.workspace_ended_frame(key, title, close_tabs=connection.hello.headless))
            for key, title in ended
        ]
        nursery.start_soon(self._send_notices, connection, frames)

    # --- routing ---------------------------------------------------------------------------

    async def wait_for_browser(self, workspace_id: Any, args: dict[str, Any]) -> None:
        """Wait, as a request would, until a browser for this workspace (or tab) is attached;
        raises ``BrowserUnavailable`` when none comes. Nothing is sent: a caller may run this
        before its effect, where a cancel still reaches the wait."""
        await self._connection_for(workspace_id, args, None)

    async def _connection_for(
        self, workspace_id: Any, args: dict[str, Any], slot: int | None
    ) -> BrowserConnection:
        if slot is None and isinstance(args.get("tabId"), int):
            slot = slot_of(args["tabId"])
        connection = self._pick(workspace_id, slot)
        if connection is not None:
            return connection
        now, wait = trio.current_time(), self._first_call_wait
        since = self._none_since
        if since is not None and now - since < 2 * wait:
            waited = f"none has attached for {now - since:.1f}s"
        else:
            with trio.move_on_after(wait):
                while True:
                    connection = self._pick(workspace_id, slot)
                    if connection is not None:
                        return connection
                    await self._changed.wait()
            self._none_since = now
            waited = f"waited {trio.current_time() - now:.1f}s for the extension"
        if slot is not None and slot in self._generations:
            raise BrowserUnavailable(
                f"The browser holding this tab (browser {slot}) is not connected"
                f" ({waited}). Reopen it or reload the Ghostlight extension"
            )
        instance = self._endpoints.instance
        message = UNAVAILABLE.format(
            waited=waited, instance="" if instance == DEFAULT_INSTANCE else f" --instance {instance}"
        )
        if self.last_wire_refusal:
            message += f". An extension was refused: {self.last_wire_refusal}"
        raise BrowserUnavailable(message)

    def _pick(self, workspace_id: Any, slot: int | None) -> BrowserConnection | None:
        if slot is not None and slot > 0:
            return self._live.get(slot)
        if workspace_id is not None:
            try:
                owned = self._workspaces.owned_tabs(workspace_id)
            except Exception:
                owned = frozenset()
            for owned_slot in sorted({slot_of(tab) for tab in owned}):
                if owned_slot in self._live:
                    return self._live[owned_slot]
        for candidate in reversed(self._focus):
            if candidate in self._live:
                return self._live[candidate]
        return None

    def _frames_for(
        self, connection: BrowserConnection, body: bytes, request_id: str
    ) -> list[bytes]:
        if len(body) <= MAX_FRAME_TO_CHROME:
            return [body]
        if wire.FEATURE_CHUNKING not in connection.features:
            raise BrowserRefused(wire.TOO_OLD_FOR_LARGE)
        try:
            return wire.chunk_frames(body, request_id)
        except ValueError as exc:
            raise BrowserRefused(f"Request too large for the browser: {exc}") from None

    def _remember_workspace(self, workspace_id: Any, group_title: str) -> None:
        self._known_workspaces[workspace_id] = group_title
        self._known_workspaces.move_to_end(workspace_id)
        while len(self._known_workspaces) > _KNOWN_WORKSPACES:
            self._known_workspaces.popitem(last=False)

    def _notify(self) -> None:
        self._changed.set()
        self._changed = trio.Event()

    # --- connections -----------------------------------------------------------------------

    async def _serve_connection(self, stream: trio.SocketStream) -> None:
        if not is_same_user(stream.socket):  # type: ignore[arg-type]
            log.warning("browser socket: refused a peer running as another user")
            await trio.aclose_forcefully(stream)
            return
        messages = MessageStream(stream, ceiling=SERVICE_FRAME_CEILING)
        try:
            hello = await admit(messages, within=self._hello_timeout)
        except AdmissionRefused as exc:
            if isinstance(exc, WireSkew):
                self.last_wire_refusal = str(exc)
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
                await self._read_replies(connection)
                link.cancel_scope.cancel()
        finally:
            self._detach(connection)
            with trio.CancelScope(shield=True):
                await trio.aclose_forcefully(stream)

    async def _attach(
        self, messages: MessageStream, hello: ExtensionHello
    ) -> BrowserConnection | None:
        slot = self._slots.setdefault(hello.browser_id, len(self._slots) + 1)
        previous_generation = self._generations.get(slot)
        if previous_generation is not None and previous_generation != hello.generation:
            log.info("browser %d restarted: purging its tab membership", slot)
            for request_id in [
                request_id
                for request_id, pending in self._unanswered.items()
                if pending.connection.slot == slot
            ]:
                del self._unanswered[request_id]  # no reply can come from a browser that ended
            self._fail_slot(slot, OutcomeUnknown(RESTARTED))
            self._workspaces.purge_slot(slot)
            if self._scheduler is not None:
                self._scheduler.browser_restarted(slot)
        self._generations[slot] = hello.generation
        self._none_since = None
        previous = self._live.pop(slot, None)
        if previous is not None:
            self._fail_connection(previous, OutcomeUnknown(RECONNECTED))
            await previous.abort()
        features = hello.features & frozenset(wire.SERVICE_FEATURES)
        connection = BrowserConnection(slot=slot, hello=hello, stream=messages, features=features)
        welcome = {
            "type": "welcome",
            "wire": WIRE_MAJOR,
            "slot": slot,
            "features": sorted(features),
            "serviceVersion": self._service_version,
            # Every other workspace the browser remembers is over (this service never had it:
            # it restarted since), so its group is marked ended instead of looking live. Browser
            # keys: whoever says hello here is told them, so they must not be handles.
            "liveWorkspaces": self._workspaces.live_browser_keys(),
        }
        # Published first: send_frames takes the (uncontended) link lock before yielding, so
        # the welcome still precedes any request frame on this link.
        self._live[slot] = connection
        self._touch_focus(slot)
        self._notify()
        try:
            await connection.send_frames([wire.encode(welcome)])
        except BridgeClosed:
            self._detach(connection)
            return None
        log.info("browser %d attached (extension %s)", slot, hello.extension_version)
        self._tell_ended(connection, list(self._ended.items()))
        skew = skew_message(hello.extension_version)
        if skew is not None:
            log.warning("browser %d: %s", slot, skew)
        return connection

    def _remember_unanswered(self, request_id: str, pending: PendingCall) -> None:
        unanswered = self._unanswered
        unanswered[request_id] = pending
        while len(unanswered) > MAX_UNANSWERED:
            unanswered.popitem(last=False)

    def _detach(self, connection: BrowserConnection) -> None:
        connection.closed = True
        if self._live.get(connection.slot) is connection:
            del self._live[connection.slot]
            log.info("browser %d detached", connection.slot)
            self._notify()
        self._fail_connection(connection, OutcomeUnknown(DISCONNECTED))

    def _fail_connection(self, connection: BrowserConnection, failure: OutcomeUnknown) -> None:
        """The link is gone: its pending calls end as outcome unknown. The extension holds the
        replies it could not send and flushes them on its next link, so what was sent is
        remembered: such a reply is the proof that lifts the quarantine its call caused."""
        for request_id, pending in list(self._pending.items()):
            if pending.connection is connection:
                if pending.sent and not pending.done.is_set():
                    self._remember_unanswered(request_id, pending)
                pending.fail(failure)

    def _fail_slot(self, slot: int, failure: OutcomeUnknown) -> None:
        for pending in list(self._pending.values()):
            if pending.connection.slot == slot:
                pending.fail(failure)

    def _touch_focus(self, slot: int) -> None:
        if slot in self._focus:
            self._focus.remove(slot)
        self._focus.append(slot)

    # --- inbound frames --------------------------------------------------------------------

    async def _watch_silence(self, connection: BrowserConnection) -> None:
        """While requests wait on a browser that has sent nothing for ``silence_limit``, ask it
        whether it answers at all (a ping its extension answers at once, however busy a page
        keeps a call), so ``ghostlight status`` can tell a slow page from a browser or native
        host that stopped answering. It only reports: each call keeps its own bound."""
        limit = self._silence_limit
        while True:
            await trio.sleep(limit / 3)
            now = trio.current_time()
            if not self._waiting_on(connection) or now - connection.heard_at < limit:
                continue
            try:
                await self.request(None, _PING, {}, timeout=limit, slot=connection.slot)
            except OutcomeUnknown:
                if self._live.get(connection.slot) is not connection:
                    return
                if connection.unanswered_ping_at is None:
                    connection.unanswered_ping_at = now
                    log.warning(
                        "browser %d answers nothing, not even a ping, with %d request(s) waiting;"
                        " it or its native host may be frozen",
                        connection.slot,
                        self._waiting_on(connection),
                    )
            except BrowserFailure:
                continue  # an error reply is an answer; a ping not sent tells nothing
            else:
                connection.unanswered_ping_at = None

    async def _read_replies(self, connection: BrowserConnection) -> None:
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
        elif kind == "tab_removed":
            native = frame.get("tabId")
            if is_native_tab_id(native):
                tab = compose_tab_id(connection.slot, native)
                owner = self._workspaces.owner_of(tab)
                if owner is not None:
                    self.tab_journal.closed(owner, tab)
                self._workspaces.tab_closed(tab)
                if self._scheduler is not None:
                    self._scheduler.surface_destroyed(TabSurface(connection.slot, native))
        elif kind == "tab_created":
            self._on_tab_created(connection, frame)
        elif kind == "tab_released":
            native = frame.get("tabId")
            if is_native_tab_id(native) and self._workspaces.tab_released(compose_tab_id(connection.slot, native)):
                log.info("browser %d: the user moved a workspace's tab out of its group", connection.slot)
        elif kind == "focus":
            self._touch_focus(connection.slot)
        # every other frame type is ignored (additive wire)

    def _on_reply(self, connection: BrowserConnection, frame: dict[str, Any]) -> None:
        pending = self._pending.get(frame.get("id"))  # type: ignore[arg-type]
        if pending is None:
            self._on_late_reply(connection, frame)
            return
        if pending.connection is not connection:
            return
        if frame["type"] == "response":
            result = frame.get("result")
            pending.settle(result if isinstance(result, dict) else {"value": result})
            return
        raw_error = frame.get("error")
        error: dict[str, Any] = raw_error if isinstance(raw_error, dict) else {}
        hop = str(error.get("hop")) if error.get("hop") in _ERROR_HOPS else "extension"
        message = str(error.get("message") or "The browser reported an unspecified error")
        code = error.get("code") if isinstance(error.get("code"), str) else None
        message = rewrite_text(message, connection.slot)
        if code == wire.STOPPED_CODE:
            pending.fail(BrowserStopped(message, proof=pending.proof, by_caller=pending.stop_asked))
            return
        dialog = error.get("dialog")
        completed = error.get("completed")
        error_page = error.get("errorPage")
        pending.fail(
            BrowserError(
                message,
                hop,
                code,
                dialog if isinstance(dialog, dict) else None,
                completed=completed if type(completed) is int and completed >= 0 else None,
                delivered=error.get("delivered") is True,
                error_page=error_page if isinstance(error_page, dict) else None,
            )
        )

    def _on_late_reply(self, connection: BrowserConnection, frame: dict[str, Any]) -> None:
        late = self._unanswered.get(frame.get("id"))  # type: ignore[arg-type]
        if late is None or not _same_browser_run(late.connection, connection):
            # Not ours, or from another browser (or a later run of it): no proof.
            return
        del self._unanswered[frame["id"]]
        if self._scheduler is not None and self._scheduler.clear_proven(late.proof):
            log.info(
                "browser %d answered request %s after its caller was told the outcome was"
                " unknown; what it stopped is free again",
                connection.slot,
                frame["id"],
            )

    def _on_tab_created(self, connection: BrowserConnection, frame: dict[str, Any]) -> None:
        child, opener = frame.get("tabId"), frame.get("openerTabId")
        if not (is_native_tab_id(child) and is_native_tab_id(opener)):
            return
        opener_id = compose_tab_id(connection.slot, opener)
        # A copy: looking a workspace up may retire one that expired, which drops it from the
        # dict (``workspace_ended``) while this loop runs.
        for workspace_id in list(reversed(self._known_workspaces)):
            if opener_id in self._workspaces.owned_tabs(workspace_id):
                child_id = compose_tab_id(connection.slot, child)
                if self._workspaces.adopt_tabs(workspace_id, [child_id]):
                    self.tab_journal.opened(
                        workspace_id, child_id, opener_id, active=frame.get("active") is True
                    )
                return


def _same_browser_run(sent_on: BrowserConnection, answered_on: BrowserConnection) -> bool:
    """A reply proves its request's outcome when it comes from the browser run the request
    went to: the same link, or a later link of the same browser and generation (the extension
    flushes the replies its lost link could not carry)."""
    if sent_on is answered_on:
        return True
    return (
        sent_on.slot == answered_on.slot
        and sent_on.hello.generation == answered_on.hello.generation
    )
