"""The workspace registry: which handles exist, which tabs each owns, and when each expires.

A ``WorkspaceId`` is an unguessable bearer capability inside the admitted same-user boundary.
It is compared exactly and never logged raw: logs and audit use ``fingerprint``. Browsers know
a workspace only by its ``browser_key``, which no bridge call accepts as a handle. Expiry is
evaluated against the Trio clock whenever the registry is consulted, so no timer task is needed
and tests drive it with a mock clock.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import logging
import secrets
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager

import attrs
import trio

from .handle import WorkspaceId
from .tab_ids import split_tab_id

log = logging.getLogger("ghostlight.workspace")

UNKNOWN_WORKSPACE_MESSAGE = "Unknown or expired workspaceId."


class UnknownWorkspace(LookupError):
    """The handle names no live workspace. Deliberately says nothing more."""

    def __init__(self) -> None:
        super().__init__(UNKNOWN_WORKSPACE_MESSAGE)


class WorkspaceLimitReached(RuntimeError):
    """Minting one more workspace would exceed the bound."""


@attrs.frozen
class WorkspaceLimits:
    max_workspaces: int = 256
    """The service's bound: at least every connection's share (``StreamLimits.max_streams``
    times ``EngineLimits.max_workspaces_per_stream``), so however the connections use theirs,
    a workspace nothing holds any more can always make room for another connection's."""
    idle_grace: float = 120.0
    """How long a workspace with no attached stream and no active work survives."""


PRESENTATION_HUES = 8
"""How many distinct colours workspaces are told apart by (the browser's group colours but grey,
which marks an ended workspace)."""


@attrs.frozen
class Presentation:
    """How the user tells a workspace apart in the browser: its client's label, a number when
    other live workspaces share that label, and a colour index. Presentation only, never
    routing or authority."""

    label: str
    ordinal: int
    """1 for the first live workspace with this label, 2 for the next, and so on."""
    hue: int
    """0..PRESENTATION_HUES-1: one no other live workspace has, while there are enough."""


@attrs.frozen
class WorkspaceSummary:
    """What the user may see of one live workspace (``ghostlight status``): never its handle."""

    fingerprint: str
    label: str
    ordinal: int
    tabs: int
    active_calls: int
    held_by_streams: int
    expires_in: float | None
    """Seconds until it expires if nothing uses it; None while a stream or a call holds it."""


@attrs.define
class _Workspace:
    label: str
    attachments: int
    presentation: Presentation
    pins: int = 0
    released: bool = False
    idle_deadline: float | None = None
    tabs: set[int] = attrs.Factory(set)
    former: dict[int, None] = attrs.Factory(dict)
    """Tabs that were this workspace's and left it (closed, moved out of its group, lost with
    their browser), oldest first, up to ``FORMER_TABS_KEPT``."""


FORMER_TABS_KEPT = 256
"""How many tabs that left it a workspace remembers: enough for any agent's working set."""


class WorkspaceRegistry:
    """All live workspaces of this service and their tab membership."""

    def __init__(
        self,
        limits: WorkspaceLimits = WorkspaceLimits(),
        *,
        clock: Callable[[], float] = trio.current_time,
        fingerprint_key: bytes | None = None,
    ) -> None:
        self._limits = limits
        self._clock = clock
        self._key = fingerprint_key or secrets.token_bytes(32)
        self._route_key = secrets.token_bytes(32)
        """Keys the browser routing keys; never leaves this object, and lives as long as the
        service (which no workspace outlives)."""
        self._live: dict[WorkspaceId, _Workspace] = {}
        self._tab_owner: dict[int, WorkspaceId] = {}
        self._minted = 0
        self.retire_listeners: list[Callable[[WorkspaceId], None]] = []
        """Called with each workspace as it goes (released or expired), so state other parts
        keep per workspace goes with it."""

    # --- lifecycle --------------------------------------------------------------------------

    def open(
        self, reattach: str | None, client_label: str = "", *, attached: bool = True
    ) -> tuple[WorkspaceId, bool]:
        """Reattach to ``reattach`` if it is still live, else mint a fresh workspace.

        ``attached=False`` mints a workspace no stream holds (a context-creating call): its idle
        grace starts at once and only active work or a later reattach keeps it alive.
        """
        self.reap()
        if reattach is not None:
            existing = self._live.get(WorkspaceId(reattach))
            if existing is not None:
                existing.released = False
                if attached:
                    existing.attachments += 1
                    existing.idle_deadline = None
                return WorkspaceId(reattach), True
        if len(self._live) >= self._limits.max_workspaces and not self._end_one_idle():
            raise WorkspaceLimitReached(
                f"workspace limit reached ({self._limits.max_workspaces} open workspaces);"
                " close idle clients or wait for their workspaces to expire"
            )
        workspace = WorkspaceId(secrets.token_urlsafe(24))
        entry = _Workspace(
            label=client_label,
            attachments=1 if attached else 0,
            presentation=self._new_presentation(client_label),
        )
        if not attached:
            entry.idle_deadline = self._clock() + self._limits.idle_grace
        self._live[workspace] = entry
        return workspace, False

    def release(self, workspace: str) -> None:
        """Clean release: gone now, or as soon as its active work settles."""
        entry = self._live.get(WorkspaceId(workspace))
        if entry is None:
            return
        entry.released = True
        if entry.pins == 0:
            self._retire(WorkspaceId(workspace))

    def attach(self, workspace: str) -> None:
        """A stream holds the workspace (it used it): no idle expiry until it lets go."""
        entry = self._live.get(WorkspaceId(workspace))
        if entry is None:
            return
        entry.attachments += 1
        entry.idle_deadline = None

    def detach(self, workspace: str) -> None:
        """The stream holding it was lost uncleanly: start the idle grace once nothing holds it."""
        entry = self._live.get(WorkspaceId(workspace))
        if entry is None:
            return
        entry.attachments = max(0, entry.attachments - 1)
        self._start_grace_if_idle(entry)

    def acquire_pin(self, workspace: str) -> WorkspaceId:
        """Active work holds the workspace: it cannot expire until ``release_pin``."""
        ws = self.resolve(workspace)
        entry = self._live[ws]
        entry.pins += 1
        entry.idle_deadline = None
        return ws

    def release_pin(self, workspace: WorkspaceId) -> None:
        entry = self._live.get(workspace)
        if entry is None:
            return
        entry.pins = max(0, entry.pins - 1)
        if entry.pins == 0 and entry.released:
            self._retire(workspace)
        else:
            self._start_grace_if_idle(entry)

    @contextmanager
    def pin(self, workspace: str) -> Iterator[WorkspaceId]:
        """Hold the workspace for the duration of one call."""
        ws = self.acquire_pin(workspace)
        try:
            yield ws
        finally:
            self.release_pin(ws)

    def reap(self) -> int:
        """Retire every expired workspace now; returns how many went."""
        now = self._clock()
        expired = [ws for ws, entry in self._live.items() if self._expired(entry, now)]
        for ws in expired:
            self._retire(ws)
        return len(expired)

    # --- lookups ----------------------------------------------------------------------------

    def resolve(self, workspace: str | None) -> WorkspaceId:
        """The live workspace named by ``workspace``; one identical error for anything else."""
        if workspace is None or not self.exists(workspace):
            raise UnknownWorkspace()
        return WorkspaceId(workspace)

    def exists(self, workspace: str) -> bool:
        ws = WorkspaceId(workspace)
        entry = self._live.get(ws)
        if entry is None:
            return False
        if self._expired(entry, self._clock()):
            self._retire(ws)
            return False
        return True

    def active_calls(self, workspace: str) -> int:
        """Calls running in the workspace now (0 for one that is gone)."""
        entry = self._live.get(WorkspaceId(workspace))
        return 0 if entry is None else entry.pins

    def holders(self, workspace: str) -> int:
        """Streams keeping the workspace alive now (0 for one that is gone)."""
        entry = self._live.get(WorkspaceId(workspace))
        return 0 if entry is None else entry.attachments

    def label(self, workspace: str) -> str:
        return self._live[self.resolve(workspace)].label

    def presentation(self, workspace: str) -> Presentation:
        return self._live[self.resolve(workspace)].presentation

    def summaries(self) -> list[WorkspaceSummary]:
        """Every live workspace, oldest first, as the user may see it."""
        self.reap()
        now = self._clock()
        return [
            WorkspaceSummary(
                fingerprint=self.fingerprint(workspace) or "",
                label=entry.label,
                ordinal=entry.presentation.ordinal,
                tabs=len(entry.tabs),
                active_calls=entry.pins,
                held_by_streams=entry.attachments,
                expires_in=None if entry.idle_deadline is None else max(0.0, entry.idle_deadline - now),
            )
            for workspace, entry in self._live.items()
        ]

    def live_browser_keys(self) -> list[str]:
        """Every live workspace's browser key (for the browsers, which know workspaces by it)."""
        self.reap()
        return [self.browser_key(workspace) for workspace in self._live]

    def __len__(self) -> int:
        self.reap()
        return len(self._live)

    def fingerprint(self, workspace: str | None) -> str | None:
        """A keyed hash for logs and audit: stable for one service life, useless to an attacker."""
        if workspace is None:
            return None
        digest = hmac.new(self._key, workspace.encode(), hashlib.sha256).hexdigest()
        return f"ws-{digest[:16]}"

    def browser_key(self, workspace: str) -> str:
        """The workspace's routing key on the browser wire: what the extension files its tabs
        and group under, names in its session storage, and is told has ended.

        Any local process of the user can speak to the browser endpoint and be told these, so
        a key is never the handle: it is a keyed hash of it under a secret of this service
        life, which cannot be turned back into the handle and is no handle itself (it has
        another length and a prefix no minted handle has), so the bridge refuses it as it
        refuses any unknown handle. Stable for as long as the workspace lives (a reattach keeps
        it; the service ending ends the workspace), and computable after the workspace went, so
        its end can still be told."""
        digest = hmac.new(self._route_key, workspace.encode(), hashlib.sha256).digest()
        return "bk-" + base64.urlsafe_b64encode(digest[:24]).decode("ascii")

    # --- tab ownership ----------------------------------------------------------------------

    def owner_of(self, composite_tab_id: int) -> WorkspaceId | None:
        """The live workspace that owns the tab, if any (for bookkeeping, never authority)."""
        return self._tab_owner.get(composite_tab_id)

    def verify_tab(self, workspace: str | None, composite_tab_id: int) -> bool:
        """True only when the live ``workspace`` owns the tab; unknown and foreign look alike."""
        if workspace is None or not self.exists(workspace):
            return False
        return self._tab_owner.get(composite_tab_id) == workspace

    def left_workspace(self, workspace: str | None, composite_tab_id: int) -> bool:
        """True when the tab was ``workspace``'s and has left it (it closed, or the user moved it
        out). The workspace knew the tab already, so saying so tells it nothing of any other
        workspace's tabs."""
        if workspace is None or not self.exists(workspace):
            return False
        entry = self._live[WorkspaceId(workspace)]
        return composite_tab_id in entry.former and composite_tab_id not in entry.tabs

    def adopt_tabs(self, workspace: str, composite_tab_ids: Iterable[int]) -> bool:
        """Add tabs to ``workspace`` all at once, or none if any belongs to another workspace."""
        ids = list(composite_tab_ids)
        if not self.exists(workspace):
            return False
        self.reap()
        ws = WorkspaceId(workspace)
        if any(self._tab_owner.get(tab, ws) != ws for tab in ids):
            return False
        for tab in ids:
            self._tab_owner[tab] = ws
            self._live[ws].tabs.add(tab)
        return True

    def adopt_unclaimed(self, workspace: str, composite_tab_ids: Iterable[int]) -> list[int]:
        """Add the tabs no other workspace owns to ``workspace``; returns those (in order), so a
        browser listing that also names another workspace's tab never hands it over."""
        ids = [tab for tab in composite_tab_ids if self._tab_owner.get(tab) in (None, workspace)]
        return ids if self.adopt_tabs(workspace, ids) else []

    def owned_tabs(self, workspace: str) -> frozenset[int]:
        if not self.exists(workspace):
            return frozenset()
        return frozenset(self._live[WorkspaceId(workspace)].tabs)

    def tab_closed(self, composite_tab_id: int) -> None:
        """The browser reported the tab gone: nobody owns it any more."""
        self.tab_released(composite_tab_id)

    def tab_released(self, composite_tab_id: int) -> bool:
        """The tab left its workspace (the user moved it out of the workspace's group): nobody
        owns it any more. True when some workspace did."""
        owner = self._tab_owner.pop(composite_tab_id, None)
        entry = self._live.get(owner) if owner is not None else None
        if entry is not None:
            entry.tabs.discard(composite_tab_id)
            entry.former[composite_tab_id] = None
            if len(entry.former) > FORMER_TABS_KEPT:
                del entry.former[next(iter(entry.former))]
        return owner is not None

    def purge_slot(self, slot: int) -> None:
        """A browser process restarted: its native ids may be reused, so drop all membership."""
        for tab in [tab for tab in self._tab_owner if split_tab_id(tab)[0] == slot]:
            self.tab_closed(tab)

    # --- internals --------------------------------------------------------------------------

    def _end_one_idle(self) -> bool:
        """Make room when every workspace is taken: end the one whose idle grace is furthest
        along. Nothing holds such a workspace (no stream, no call), so one client that minted
        many cannot keep other clients from opening theirs. False when none is idle."""
        idle = [(entry.idle_deadline, ws) for ws, entry in self._live.items()
                if entry.idle_deadline is not None and entry.pins == 0]  # fmt: skip
        if not idle:
            return False
        self._retire(min(idle)[1])
        return True

    def _new_presentation(self, label: str) -> Presentation:
        live = [entry.presentation for entry in self._live.values()]
        taken = {p.ordinal for p in live if p.label == label}
        ordinal = next(n for n in range(1, len(taken) + 2) if n not in taken)
        used = {p.hue for p in live}
        free = [hue for hue in range(PRESENTATION_HUES) if hue not in used]
        self._minted += 1
        hue = free[0] if free else self._minted % PRESENTATION_HUES
        return Presentation(label, ordinal, hue)

    def _expired(self, entry: _Workspace, now: float) -> bool:
        return entry.pins == 0 and entry.idle_deadline is not None and now >= entry.idle_deadline

    def _start_grace_if_idle(self, entry: _Workspace) -> None:
        if entry.attachments == 0 and entry.pins == 0 and entry.idle_deadline is None:
            entry.idle_deadline = self._clock() + self._limits.idle_grace

    def _retire(self, workspace: WorkspaceId) -> None:
        entry = self._live.pop(workspace, None)
        if entry is None:
            return
        for tab in entry.tabs:
            if self._tab_owner.get(tab) == workspace:
                del self._tab_owner[tab]
        for listener in list(self.retire_listeners):
            try:
                listener(workspace)
            except Exception:
                log.exception("workspace retire listener failed")
