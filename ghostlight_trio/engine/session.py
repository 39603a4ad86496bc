"""One admitted stream's side of the engine: admission of calls and its bounded active-work map.

The map (``WorkId -> call``, whose cancel scope is the cancellation token) exists only while a
call is active; the entry disappears when it settles. There is no global work table.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import math
import secrets
from collections import OrderedDict
from typing import Protocol

import trio

from ..catalog.registry import ToolSpec
from ..transport.bridge import Rejected, RejectionCode, Start, Started
from ..workspace import WorkspaceLimitReached
from . import texts
from .call import CallState, ResponseSink
from .contracts import WorkContext, WorkspaceId
from .runner import CallRunner, EngineParts

log = logging.getLogger("ghostlight.engine")


REMEMBERED_WORKSPACES = 256
"""Workspaces a stream's calls used that it remembers for carrying a pause (ids only)."""


class _Refusal(Exception):
    def __init__(self, code: RejectionCode, message: str, next_step: str = "") -> None:
        super().__init__(message)
        self.code: RejectionCode = code
        self.message = message
        self.next_step = next_step


class SessionEngine(EngineParts, Protocol):
    """What a session needs of its engine (``WorkEngine``): the shared parts, the runner, and
    the service-wide count of active work."""

    runner: CallRunner

    def work_began(self) -> None: ...
    def work_ended(self) -> None: ...


class WorkSession:
    """Calls started on one stream. Create with ``WorkEngine.open_session``."""

    def __init__(self, engine: SessionEngine, nursery: trio.Nursery, sink: ResponseSink) -> None:
        self._engine = engine
        self._nursery = nursery
        self._sink = sink
        self._active: dict[str, CallState] = {}
        self._numbers = itertools.count(1)
        # Work ids need only be unique within the stream; the stream's own random tag keeps them
        # apart from other streams' ids in the audit trail without asking the OS for each call.
        self._work_tag = secrets.token_urlsafe(6)
        self._closed = False
        # The reply deadline, then the settlement bound, of each of this stream's calls, earliest
        # first, watched by one task (not one task or timer per call). Entries of settled calls
        # are dropped lazily.
        self._deadlines: list[tuple[float, int, CallState, bool]] = []
        self._deadline_order = itertools.count()
        self._watcher_running = False
        self._watcher_wakes_at = -math.inf
        """When the watcher will look next by itself (-inf while it is running or starting)."""
        self._watcher_wake = trio.lowlevel.ParkingLot()
        self._share: OrderedDict[WorkspaceId, None] = OrderedDict()
        """This stream's share of the workspaces: those it opened, minted or used that may
        still be live, least recently used first (see ``EngineLimits``)."""
        self._held: OrderedDict[WorkspaceId, None] = OrderedDict()
        """Of those, the ones it keeps alive (one attachment each), least recently used first."""
        self._opened: set[WorkspaceId] = set()
        """Of those, the ones it opened itself (its implicit workspace): kept alive until it
        releases them or closes, however many others it uses."""
        self._used: OrderedDict[WorkspaceId, None] = OrderedDict()
        """Workspaces this stream's calls used, most recent last, well past those it holds:
        the kin a pause carries over from (see ``minted``)."""
        self._named_unknown = False
        """A call on this stream named a workspace the service does not know (one from before
        a restart, say): the next workspace minted here is taken as its replacement."""

    @property
    def active(self) -> int:
        return len(self._active)

    def start(self, message: Start, *, unfit: tuple[str, str] | None = None) -> Started | Rejected:
        """Admit one call and post ``Started`` (or ``Rejected``: then nothing ran). ``unfit``:
        a field of the call held values JSON cannot (which, and what: see ``CallState``)."""
        try:
            reply: Started | Rejected = self._admit(message, unfit)
        except _Refusal as refusal:
            reply = Rejected(
                sequence=message.sequence,
                code=refusal.code,
                message=refusal.message,
                next_step=refusal.next_step,
            )
        self._sink.post(reply)
        return reply

    def cancel(self, work_id: str) -> None:
        """Cooperative cancellation; unknown or already settled ids are ignored."""
        call = self._active.get(work_id)
        if call is not None:
            call.cancel("caller")

    def abandon(self) -> None:
        """The stream is gone: cancel everything it started (dispatched effects still drain)."""
        self._closed = True
        for call in list(self._active.values()):
            call.cancel("caller")
        registry = self._engine.workspaces
        for workspace in self._held:
            registry.detach(workspace)
        self._held.clear()
        self._share.clear()
        self._opened.clear()
        self._watcher_wake.unpark_all()

    # --- workspaces the stream opens itself -------------------------------------------------

    def open_workspace(self, reattach: str | None, client_label: str) -> tuple[WorkspaceId, bool]:
        """``OpenWorkspace``: the workspace named by ``reattach`` when it is still live, else a
        fresh one; kept alive until the stream releases it or closes. True when reattached.

        Raises ``WorkspaceLimitReached`` when neither the stream's share nor the service has
        room for it."""
        registry = self._engine.workspaces
        known = reattach is not None and registry.exists(reattach)
        if not (known and WorkspaceId(str(reattach)) in self._share):
            try:
                self._make_room()
            except _Refusal as refusal:
                raise WorkspaceLimitReached(refusal.message) from None
        holding = known and WorkspaceId(str(reattach)) in self._held
        workspace, reattached = registry.open(reattach, client_label, attached=not holding)
        if not reattached:  # a handle it asked for back that the service no longer knows
            self.minted(workspace, replacing=reattach is not None)
        self._opened.add(workspace)
        self._take(workspace, attach=False)  # ``open`` attached it (or the stream held it)
        return workspace, reattached

    def release_workspace(self, workspace: str) -> None:
        """``ReleaseWorkspace``: the client is done with it; it ends now, or once the calls
        running in it settle."""
        self._forget(WorkspaceId(workspace))
        self._engine.workspaces.release(workspace)

    # --- admission --------------------------------------------------------------------------

    def _admit(self, message: Start, unfit: tuple[str, str] | None) -> Started:
        engine = self._engine
        spec = engine.catalog.callable_spec(message.operation)
        if spec is None or message.operation not in engine.handlers:
            raise _Refusal("unknown_tool", texts.unknown_tool(message.operation))
        if self._closed:
            raise _Refusal("shutting_down", "This connection is closing; nothing was started.")
        limit = engine.limits.max_active_per_stream
        if len(self._active) >= limit:
            raise _Refusal("busy", texts.TOO_MUCH_ACTIVE_WORK.format(limit=limit))
        workspace, minted = self._resolve_workspace(spec, message)
        work_id = f"{next(self._numbers):x}.{self._work_tag}"
        now = engine.clock()
        call = CallState(
            context=WorkContext(
                work_id=work_id,
                operation=spec.name,
                workspace_id=workspace,
                client_label=message.context.client_label,
                restriction=message.context.restriction,
            ),
            spec=spec,
            arguments=message.arguments,
            producer=workspace if workspace is not None else self,
            sink=self._sink,
            started_at=now,
            settle_by=now + engine.limits.settlement_deadline,
            wants_progress=message.context.wants_progress,
            minted_workspace=minted,
            unfit=unfit,
        )
        if workspace is not None:
            engine.workspaces.acquire_pin(workspace)
            self._take(workspace)
        self._active[work_id] = call
        engine.work_began()
        self._nursery.start_soon(self._run, call, name=f"work {work_id} {spec.name}")
        self._watch_reply_deadline(call)
        return Started(sequence=message.sequence, work_id=work_id)

    def _take(self, workspace: WorkspaceId, *, attach: bool = True) -> None:
        """Count a workspace this stream uses in its share (room was made first: see
        ``_make_room``) and keep it alive while the stream lasts. A stateless client names its
        workspace on every call and may pause between calls for as long as its user takes; the
        idle grace starts only once no stream holds it (or this stream has gone on to many newer
        ones). ``attach=False``: the stream holds it already."""
        self._remember(workspace)
        share = self._share
        share[workspace] = None
        share.move_to_end(workspace)
        held = self._held
        if workspace in held:
            held.move_to_end(workspace)
            return
        registry = self._engine.workspaces
        if attach:
            registry.attach(workspace)
        held[workspace] = None
        if len(held) > self._engine.limits.max_held_workspaces_per_stream:
            oldest = next((ws for ws in held if ws not in self._opened), None)
            if oldest is not None:
                del held[oldest]
                registry.detach(oldest)

    def _make_room(self) -> None:
        """Before one more workspace joins this stream's share: when the share is full, end
        the stream's own least recently used workspace that has no call in flight (only give
        it up when another stream holds it too). Another stream's workspace is never touched:
        the service's bound is sized so that shares always fit in it. Refused as busy when
        each of the stream's workspaces has a call in flight."""
        share = self._share
        limit = self._engine.limits.max_workspaces_per_stream
        if len(share) < limit:
            return
        registry = self._engine.workspaces
        for gone in [ws for ws in share if not registry.exists(ws)]:
            self._forget(gone)
        if len(share) < limit:
            return
        oldest = next((ws for ws in share if registry.active_calls(ws) == 0), None)
        if oldest is None:
            raise _Refusal("busy", texts.WORKSPACE_SHARE_BUSY.format(limit=limit))
        held = oldest in self._held
        self._forget(oldest)
        if held:
            registry.detach(oldest)
        if registry.holders(oldest) == 0:
            log.info(
                "workspace %s ended to make room in its connection's share of %d",
                registry.fingerprint(oldest),
                limit,
            )
            registry.release(oldest)

    def _forget(self, workspace: WorkspaceId) -> None:
        """The workspace no longer counts in this stream's share (it went, or was let go)."""
        self._share.pop(workspace, None)
        self._held.pop(workspace, None)
        self._opened.discard(workspace)

    def _remember(self, workspace: WorkspaceId) -> None:
        used = self._used
        used[workspace] = None
        used.move_to_end(workspace)
        if len(used) > REMEMBERED_WORKSPACES:
            used.popitem(last=False)

    def minted(self, workspace: WorkspaceId, *, replacing: bool = False) -> None:
        """A workspace was just minted for this stream: what follows its client (a pause by
        the attention circuit) carries over from the workspaces the stream used, not only the
        few it still holds, so going through many workspaces first is no way out of a pause.
        ``replacing``: the client asked for a workspace the service no longer knows (so did
        any earlier call on the stream that named one)."""
        replacing, self._named_unknown = replacing or self._named_unknown, False
        kin = [*self._used, *(ws for ws in self._opened if ws != workspace)]
        if kin or replacing:
            self._engine.gate.minted(workspace, kin, replacing=replacing)

    def _resolve_workspace(self, spec: ToolSpec, message: Start) -> tuple[WorkspaceId | None, bool]:
        registry = self._engine.workspaces
        handle = message.workspace_id
        if spec.workspace_use == "independent":
            if handle is not None and registry.exists(handle):
                return self._joining(WorkspaceId(handle)), False
            return None, False
        if handle is None and spec.workspace_use == "uses":
            raise _Refusal(
                "workspace_required", texts.WORKSPACE_REQUIRED, texts.WORKSPACE_NEXT_STEP
            )
        if handle is None:
            self._make_room()
            try:
                minted, _ = registry.open(None, message.context.client_label, attached=False)
            except WorkspaceLimitReached as exc:
                raise _Refusal("busy", str(exc)) from None
            self.minted(minted)
            return minted, True
        if not registry.exists(handle):
            self._named_unknown = True
            raise _Refusal("unknown_workspace", texts.UNKNOWN_WORKSPACE, texts.WORKSPACE_NEXT_STEP)
        return self._joining(WorkspaceId(handle)), False

    def _joining(self, workspace: WorkspaceId) -> WorkspaceId:
        """A live workspace a call names: room is made for it in the share when it is new
        there."""
        if workspace not in self._share:
            self._make_room()
        return workspace

    async def _run(self, call: CallState) -> None:
        engine = self._engine
        try:
            await engine.runner.run(call)
        finally:
            self._active.pop(call.context.work_id, None)
            workspace = call.context.workspace_id
            if workspace is not None:
                engine.workspaces.release_pin(workspace)
                if call.minted_workspace and call.reported != "ok":
                    # The caller never learned this handle, so nothing could ever reattach it.
                    engine.workspaces.release(workspace)
                    self._forget(workspace)  # gone: it no longer takes a place
            engine.work_ended()
            if self._closed and not self._active:
                self._watcher_wake.unpark_all()

    # --- reply deadlines --------------------------------------------------------------------

    def _watch_reply_deadline(self, call: CallState) -> None:
        deadlines = self._deadlines
        # Drop settled calls from the front, and compact when settled ones pile up behind a
        # long call, so the heap stays proportional to the active work.
        while deadlines and deadlines[0][2].settled:
            heapq.heappop(deadlines)
        if len(deadlines) > 2 * len(self._active) + 16:
            deadlines[:] = [entry for entry in deadlines if not entry[2].settled]
            heapq.heapify(deadlines)
        deadline = self._engine.runner.reply_deadline(call)
        heapq.heappush(deadlines, (deadline, next(self._deadline_order), call, False))
        if not self._watcher_running:
            self._watcher_running = True
            self._nursery.start_soon(self._watch_deadlines, name="reply deadlines")
        elif deadline < self._watcher_wakes_at:
            # The watcher sleeps past this deadline (or without one): wake it to re-arm. An
            # earlier wake-up is harmless: it finds nothing due and sleeps again.
            self._watcher_wake.unpark_all()

    async def _watch_deadlines(self) -> None:
        """Apply each call's reply deadline, then its settlement bound, when they come. Runs
        while the stream is open or any of its calls is active.

        At the settlement bound the call's scope is cancelled: whatever still runs stops there
        and the call settles as "outcome unknown" (a dispatched atomic effect carries the same
        bound on its own shielded scope)."""
        deadlines = self._deadlines
        try:
            while True:
                self._apply_due_deadlines(trio.current_time())
                if self._closed and not self._active:
                    return
                self._watcher_wakes_at = deadlines[0][0] if deadlines else math.inf
                with trio.move_on_at(self._watcher_wakes_at):
                    await self._watcher_wake.park()
                self._watcher_wakes_at = -math.inf
        finally:
            self._watcher_running = False

    def _apply_due_deadlines(self, now: float) -> None:
        """A function of its own, so the watcher holds no call while it sleeps."""
        runner = self._engine.runner
        deadlines = self._deadlines
        while deadlines and (deadlines[0][2].settled or deadlines[0][0] <= now):
            _, _, call, settling = heapq.heappop(deadlines)
            if call.settled:
                continue
            if settling:
                call.scope.cancel()
                continue
            runner.reply_deadline_passed(call)
            if not call.settled:
                entry = (call.settle_by, next(self._deadline_order), call, True)
                heapq.heappush(deadlines, entry)
