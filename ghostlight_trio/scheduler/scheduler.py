"""The scheduler: exclusive leases on browser resources, granted fairly and within bounds.

Each resource has one FIFO per producer (a workspace, or a stream for workspace-less work);
ready producers are served round-robin. A browser-wide request and a request for a key inside
that browser are served in arrival order, so neither starves the other. A lease is held from the
first probe of the resource through the call's terminal record; its holder may re-acquire what it
already holds. After an effect whose outcome is unknown, the resource is quarantined until exact
proof clears it: time never does.
"""

from __future__ import annotations

import hmac
import itertools
from collections import OrderedDict, deque
from collections.abc import Callable, Hashable
from types import TracebackType

import attrs
import trio

from .errors import (
    Busy,
    LeaseOrderError,
    QueueDeadlineExceeded,
    ResourceQuarantined,
    SchedulerRefusal,
)
from .keys import BrowserWide, ResourceKey, ServiceLocal, TabSurface, conflicts


@attrs.frozen
class SchedulerLimits:
    """How much may wait, and for how long. Past a bound a call is refused as busy, and
    nothing of it has started."""

    per_resource: int = 32
    """Requests waiting for one resource key, across producers."""
    per_producer: int = 128
    """Requests one producer has waiting: a workspace, or the work of a stream that names no
    workspace."""
    global_queued: int = 1024
    """Requests waiting in the whole service."""
    queue_deadline: float = 30.0
    """Seconds a request may wait for its key; then it is refused, and nothing of it ran."""


@attrs.define(eq=False)
class _Grant:
    holder: Hashable
    depth: int = 1


@attrs.define(eq=False)
class Lease:
    """Proof that the holder may act on ``key`` right now."""

    _scheduler: Scheduler
    key: ResourceKey

    def mark_uncertain(self, proof: str) -> None:
        """An effect dispatched under this lease has an unknown outcome: quarantine the key."""
        self._scheduler.quarantine(self.key, proof)


@attrs.define(eq=False)
class LeaseRequest:
    """One request for a lease; use ``async with``. ``granted`` flips the moment it is granted."""

    _scheduler: Scheduler
    key: ResourceKey
    producer: Hashable
    holder: Hashable
    ends_surface: bool = False
    """The work destroys its surface (closes the tab): a quarantine does not stop it,
    since the surface's end is itself the proof that lifts the quarantine."""
    granted: bool = attrs.field(default=False, init=False)
    seq: int = attrs.field(default=0, init=False)
    error: SchedulerRefusal | None = attrs.field(default=None, init=False)
    event: trio.Event | None = attrs.field(default=None, init=False)
    """Set when a queued request is granted or retired; made only once it is queued (a
    service-local lease, never queued, costs no event)."""
    _held: bool = attrs.field(default=False, init=False)

    async def __aenter__(self) -> Lease:
        await self._scheduler._acquire(self)
        self._held = True
        return Lease(self._scheduler, self.key)

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._held:
            self._held = False
            self._scheduler._release(self.key, self.holder)


class Scheduler:
    """Grants leases on resource keys; see the module docstring for the rules."""

    def __init__(
        self,
        limits: SchedulerLimits = SchedulerLimits(),
        *,
        clock: Callable[[], float] = trio.current_time,
    ) -> None:
        self._limits = limits
        self._clock = clock
        self._grants: dict[ResourceKey, _Grant] = {}
        self._queues: dict[ResourceKey, OrderedDict[Hashable, deque[LeaseRequest]]] = {}
        self._per_producer: dict[Hashable, int] = {}
        self._queued = 0
        self._quarantine: dict[ResourceKey, str] = {}
        self._sequence = itertools.count(1)

    # --- public -----------------------------------------------------------------------------

    def lease(
        self, key: ResourceKey, *, producer: Hashable, holder: Hashable, ends_surface: bool = False
    ) -> LeaseRequest:
        """A request to hold ``key`` exclusively; ``holder`` identifies reentrant use."""
        return LeaseRequest(self, key, producer, holder, ends_surface)

    @property
    def queued(self) -> int:
        return self._queued

    @property
    def active(self) -> int:
        return len(self._grants)

    def holds(self, key: ResourceKey, holder: Hashable) -> bool:
        grant = self._grants.get(key)
        return grant is not None and grant.holder == holder

    @property
    def quarantined(self) -> list[ResourceKey]:
        """Every key under quarantine now (for status)."""
        return list(self._quarantine)

    def is_quarantined(self, key: ResourceKey) -> bool:
        return self._quarantined_by(key) is not None

    def _quarantined_by(
        self, key: ResourceKey, *, ends_surface: bool = False
    ) -> ResourceKey | None:
        """The quarantined key that stops work on ``key``, if any. Work that ends its surface
        passes that surface's own quarantine, never a wider one (its browser's)."""
        if not self._quarantine:
            return None
        return next(
            (
                held
                for held in self._quarantine
                if conflicts(key, held) and not (ends_surface and held == key)
            ),
            None,
        )

    def quarantine(self, key: ResourceKey, proof: str) -> None:
        """Refuse all work conflicting with ``key`` until ``clear_quarantine(key, proof)``."""
        if isinstance(key, ServiceLocal):
            return
        self._quarantine[key] = proof
        stopped = [
            r
            for r in self._all_queued()
            if conflicts(r.key, key) and not (r.ends_surface and r.key == key)
        ]
        for request in stopped:
            self._retire(request, ResourceQuarantined(_quarantine_message(key)))

    def clear_quarantine(self, key: ResourceKey, proof: str) -> bool:
        """Lift the quarantine only for the exact proof it was set with."""
        held = self._quarantine.get(key)
        if held is None or not hmac.compare_digest(held.encode(), proof.encode()):
            return False
        del self._quarantine[key]
        self._pump()
        return True

    def clear_proven(self, proof: str) -> bool:
        """The browser answered the very request whose outcome was unknown (a late reply): its
        outcome is known now, so the quarantine it caused, and only that one, is lifted."""
        for key, held in list(self._quarantine.items()):
            if hmac.compare_digest(held.encode(), proof.encode()):
                del self._quarantine[key]
                self._pump()
                return True
        return False

    def surface_destroyed(self, key: ResourceKey) -> None:
        """The tab is gone: its uncertainty can no longer matter, later work uses a new id."""
        self._quarantine.pop(key, None)
        self._pump()

    def browser_restarted(self, slot: int) -> None:
        """The browser process ended: every uncertainty in its slot is moot."""
        for key in [k for k in self._quarantine if getattr(k, "slot", None) == slot]:
            del self._quarantine[key]
        self._pump()

    # --- acquisition ------------------------------------------------------------------------

    async def _acquire(self, request: LeaseRequest) -> None:
        await trio.lowlevel.checkpoint_if_cancelled()
        key = request.key
        if isinstance(key, ServiceLocal):
            # Bypasses every queue: granted at once, with no schedule point of its own, so a
            # service-local call runs straight through to its answer.
            request.granted = True
            return
        if self._reenter(request):
            await trio.lowlevel.cancel_shielded_checkpoint()
            return
        held = self._quarantined_by(key, ends_surface=request.ends_surface)
        if held is not None:
            raise ResourceQuarantined(_quarantine_message(held))
        self._enqueue(request)
        self._pump()
        if request.granted:
            await trio.lowlevel.cancel_shielded_checkpoint()
            return
        self._check_bounds(request)
        try:
            with trio.move_on_at(self._clock() + self._limits.queue_deadline):
                assert request.event is not None  # made when it was queued
                await request.event.wait()
        except BaseException:
            if request.granted:
                self._release(key, request.holder)
            else:
                self._withdraw(request)
            raise
        if request.granted:
            return
        if request.error is not None:
            raise request.error
        self._withdraw(request)
        raise QueueDeadlineExceeded(
            f"Not started: it waited {self._limits.queue_deadline:g} s in the queue for"
            f" {key.describe()} without being granted; nothing ran. It is safe to retry."
        )

    def _reenter(self, request: LeaseRequest) -> bool:
        """Grant at once what the holder already covers; refuse an upgrade that could deadlock."""
        mine = [k for k, g in self._grants.items() if g.holder == request.holder]
        overlapping = [k for k in mine if conflicts(k, request.key)]
        if not overlapping:
            return False
        if request.key not in mine and not any(isinstance(k, BrowserWide) for k in overlapping):
            raise LeaseOrderError(
                f"{request.key.describe()} cannot be taken while holding a part of it;"
                " acquire the wider resource first"
            )
        grant = self._grants.get(request.key)
        if grant is None:
            self._grants[request.key] = _Grant(holder=request.holder)
        else:
            grant.depth += 1
        request.granted = True
        return True

    def _check_bounds(self, request: LeaseRequest) -> None:
        line_total = sum(len(line) for line in self._queues.get(request.key, {}).values())
        limits = self._limits
        if line_total > limits.per_resource:
            scope, message = "resource", f"queued for {request.key.describe()}"
        elif self._per_producer.get(request.producer, 0) > limits.per_producer:
            scope, message = "producer", "queued for this workspace"
        elif self._queued > limits.global_queued:
            scope, message = "global", "queued in the service"
        else:
            return
        self._withdraw(request)
        raise Busy(
            scope,
            f"Ghostlight is busy: too many calls are already {message}; nothing was started."
            " Retry after some of them finish.",
        )

    def _release(self, key: ResourceKey, holder: Hashable) -> None:
        if isinstance(key, ServiceLocal):
            return
        grant = self._grants.get(key)
        if grant is None or grant.holder != holder:
            return
        grant.depth -= 1
        if grant.depth == 0:
            del self._grants[key]
            self._pump()

    # --- queues -----------------------------------------------------------------------------

    def _enqueue(self, request: LeaseRequest) -> None:
        request.seq = next(self._sequence)
        request.event = trio.Event()
        producers = self._queues.setdefault(request.key, OrderedDict())
        producers.setdefault(request.producer, deque()).append(request)
        self._per_producer[request.producer] = self._per_producer.get(request.producer, 0) + 1
        self._queued += 1

    def _withdraw(self, request: LeaseRequest) -> None:
        producers = self._queues.get(request.key)
        line = producers.get(request.producer) if producers is not None else None
        if line is None or request not in line:
            return
        line.remove(request)
        self._forget_queued(request, producers, line)  # type: ignore[arg-type]
        self._pump()

    def _forget_queued(
        self,
        request: LeaseRequest,
        producers: OrderedDict[Hashable, deque[LeaseRequest]],
        line: deque[LeaseRequest],
    ) -> None:
        if not line:
            del producers[request.producer]
        if not producers:
            del self._queues[request.key]
        remaining = self._per_producer[request.producer] - 1
        if remaining:
            self._per_producer[request.producer] = remaining
        else:
            del self._per_producer[request.producer]
        self._queued -= 1

    def _retire(self, request: LeaseRequest, error: SchedulerRefusal) -> None:
        request.error = error
        self._withdraw(request)
        if request.event is not None:
            request.event.set()

    def _all_queued(self) -> list[LeaseRequest]:
        return [
            r for producers in self._queues.values() for line in producers.values() for r in line
        ]

    def _front(self, key: ResourceKey) -> LeaseRequest:
        producers = self._queues[key]
        return producers[next(iter(producers))][0]

    def _pump(self) -> None:
        """Grant every front request that nothing blocks, round-robin across producers."""
        progress = True
        while progress:
            progress = False
            for key in list(self._queues):
                if key not in self._queues:
                    continue
                request = self._front(key)
                if self._blocked(request):
                    continue
                producers = self._queues[key]
                line = producers[request.producer]
                line.popleft()
                if line:
                    producers.move_to_end(request.producer)
                self._forget_queued(request, producers, line)
                self._grants[key] = _Grant(holder=request.holder)
                request.granted = True
                if request.event is not None:
                    request.event.set()
                progress = True

    def _blocked(self, request: LeaseRequest) -> bool:
        key = request.key
        if self._quarantined_by(key, ends_surface=request.ends_surface) is not None:
            return True
        if any(conflicts(key, held) for held in self._grants):
            return True
        # Between a browser and the keys inside it, the older front request goes first.
        for other_key in self._queues:
            if other_key == key or not conflicts(key, other_key):
                continue
            if isinstance(key, BrowserWide) or isinstance(other_key, BrowserWide):
                if self._front(other_key).seq < request.seq:
                    return True
        return False


def _quarantine_message(held: ResourceKey) -> str:
    """Why work on a key that conflicts with the quarantined ``held`` did not start."""
    text = (
        f"Not started: {held.describe()} is quarantined because an earlier action on it has an"
        " unknown outcome; nothing is sent there until the browser reports how that action"
        " ended, and nothing ran."
    )
    if isinstance(held, TabSurface):
        text += (
            " Continue in a new tab (tabs_create_mcp), or close this one with tab_control"
            " (action close)."
        )
    return text
