"""The work engine: shared parts every stream's calls run against, and the active-work count.

Active work is counted here, independently of streams, so the service's idle shutdown never
ends a call that is still settling after its caller left.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

import attrs
import trio

from ..catalog.registry import Catalog
from ..scheduler import Scheduler
from ..workspace import WorkspaceRegistry
from .audit import AuditHook
from .call import ResponseSink
from .contracts import ToolHandler
from .gate import CallGate, OpenGate
from .limits import DEFAULT_LIMITS, EngineLimits
from .resources import ResourceResolver, resource_for
from .runner import AfterCall, CallRunner
from .session import WorkSession


def _no_audit(record: object) -> None:
    """Audit nowhere (tests and tools that need no trail)."""


def _open_unless_given(gate: CallGate | None) -> CallGate:
    return gate or OpenGate()


def _handler_table(handlers: Mapping[str, ToolHandler]) -> dict[str, ToolHandler]:
    """A copy of its own: the caller's mapping may change; the engine's table does not."""
    return dict(handlers)


def _hooks(hooks: Iterable[AfterCall]) -> tuple[AfterCall, ...]:
    return tuple(hooks)


@attrs.define(kw_only=True, eq=False)
class WorkEngine:
    """Owns nothing but shared parts; each call's task lives in its stream's nursery."""

    catalog: Catalog
    handlers: dict[str, ToolHandler] = attrs.field(converter=_handler_table)
    workspaces: WorkspaceRegistry
    scheduler: Scheduler
    audit: AuditHook = _no_audit
    limits: EngineLimits = DEFAULT_LIMITS
    resolve_resource: ResourceResolver = resource_for
    clock: Callable[[], float] = trio.current_time
    gate: CallGate = attrs.field(default=None, converter=_open_unless_given)
    after_call: tuple[AfterCall, ...] = attrs.field(default=(), converter=_hooks)
    runner: CallRunner = attrs.field(init=False)
    _active_work: int = attrs.field(default=0, init=False)

    def __attrs_post_init__(self) -> None:
        self.runner = CallRunner(self)

    def audit_problem(self) -> str:
        """Why audit records cannot be written now (calls that reach a page are refused while
        so); "" when they can."""
        return self.runner.audit_problem()

    @property
    def active_work(self) -> int:
        """Calls not yet settled, across all streams, live or lost."""
        return self._active_work

    def open_session(self, nursery: trio.Nursery, sink: ResponseSink) -> WorkSession:
        """A session whose call tasks run in ``nursery`` and whose answers go to ``sink``."""
        return WorkSession(self, nursery, sink)

    def work_began(self) -> None:
        self._active_work += 1

    def work_ended(self) -> None:
        self._active_work -= 1
