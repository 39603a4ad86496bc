"""A work engine wired to the real catalog, a recording sink and in-memory audit."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import trio

from ghostlight_trio.catalog.registry import Catalog, load_specs
from ghostlight_trio.engine.audit import AuditRecord
from ghostlight_trio.engine.contracts import ToolHandler
from ghostlight_trio.engine.engine import WorkEngine
from ghostlight_trio.engine.limits import EngineLimits
from ghostlight_trio.engine.runner import AfterCall
from ghostlight_trio.scheduler import Scheduler, SchedulerLimits
from ghostlight_trio.transport.bridge import (
    Message,
    Outcome,
    Progress,
    Rejected,
    RequestContext,
    Start,
    Started,
)
from ghostlight_trio.workspace import WorkspaceLimits, WorkspaceRegistry, compose_tab_id

TAB = compose_tab_id(1, 7)
OTHER_TAB = compose_tab_id(1, 8)


class RecordingSink:
    def __init__(self) -> None:
        self.messages: list[tuple[float, Message]] = []

    def post(self, message: Message) -> None:
        self.messages.append((trio.current_time(), message))

    def post_progress(self, message: Progress) -> None:
        self.post(message)


class Harness:
    def __init__(
        self,
        nursery: trio.Nursery,
        handlers: Mapping[str, ToolHandler],
        *,
        scheduler_limits: SchedulerLimits | None = None,
        engine_limits: EngineLimits | None = None,
        workspace_limits: WorkspaceLimits | None = None,
        after_call: Sequence[AfterCall] = (),
    ) -> None:
        self.workspaces = WorkspaceRegistry(workspace_limits or WorkspaceLimits())
        self.scheduler = Scheduler(scheduler_limits or SchedulerLimits())
        self.audit: list[AuditRecord] = []
        self.catalog = Catalog(load_specs(), available=handlers.keys())
        self.engine = WorkEngine(
            catalog=self.catalog,
            handlers=handlers,
            workspaces=self.workspaces,
            scheduler=self.scheduler,
            audit=self.audit.append,
            limits=engine_limits or EngineLimits(),
            after_call=after_call,
        )
        self.sink = RecordingSink()
        self.nursery = nursery
        self.session = self.engine.open_session(nursery, self.sink)
        self._sequence = 0

    def workspace(self, *tabs: int, attached: bool = True) -> str:
        ws, _ = self.workspaces.open(None, "test", attached=attached)
        assert self.workspaces.adopt_tabs(ws, tabs)
        return ws

    def start(
        self,
        operation: str,
        arguments: dict[str, Any],
        workspace: str | None = None,
        *,
        wants_progress: bool = False,
    ) -> Started | Rejected:
        self._sequence += 1
        return self.session.start(
            Start(
                sequence=self._sequence,
                operation=operation,
                arguments=arguments,
                workspace_id=workspace,
                context=RequestContext(client_label="test", wants_progress=wants_progress),
            )
        )

    def work_id(self, reply: Started | Rejected) -> str:
        assert isinstance(reply, Started), reply
        return reply.work_id

    def outcomes(self, work_id: str | None = None) -> list[tuple[float, Outcome]]:
        return [
            (t, m)
            for t, m in self.sink.messages
            if isinstance(m, Outcome) and (work_id is None or m.work_id == work_id)
        ]

    def only_outcome(self, work_id: str) -> Outcome:
        found = self.outcomes(work_id)
        assert len(found) == 1, found
        return found[0][1]


