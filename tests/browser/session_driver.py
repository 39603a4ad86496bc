"""Drives an engine session the way a bridge stream does: starts calls and collects the one
Outcome each of them gets (a second one fails the test at once). ``text`` reads a result."""

from __future__ import annotations

from typing import Any

import trio

from ghostlight_trio.engine.engine import WorkEngine
from ghostlight_trio.transport.bridge import Outcome, RequestContext, Start, Started


def text(result: Any) -> str:
    """The text blocks of an Outcome (or a handler's ToolResult), joined as one string."""
    return "".join(getattr(block, "text", "") for block in result.content)


class SessionDriver:
    """The session's response sink, plus ``start`` / ``outcome`` / ``call`` for the test."""

    def __init__(self, engine: WorkEngine, nursery: trio.Nursery, *, hang_guard: float = 10) -> None:
        self.outcomes: dict[str, Outcome] = {}
        self.changed = trio.Event()
        self.session = engine.open_session(nursery, self)
        self._hang_guard = hang_guard
        """How long ``outcome`` waits before failing the test; the calls' own bounds are longer."""
        self._sequence = 0

    # ResponseSink
    def post(self, message: Any) -> None:
        if isinstance(message, Outcome):
            assert message.work_id not in self.outcomes, "a second outcome"
            self.outcomes[message.work_id] = message
            self.changed.set()
            self.changed = trio.Event()

    def post_progress(self, message: Any) -> None:
        pass

    def start(
        self,
        tool: str,
        arguments: dict[str, Any],
        workspace: str | None = None,
        restriction: dict[str, Any] | None = None,
    ) -> str:
        self._sequence += 1
        reply = self.session.start(
            Start(
                sequence=self._sequence,
                operation=tool,
                arguments=arguments,
                workspace_id=workspace,
                context=RequestContext(client_label="agent", restriction=restriction),
            )
        )
        assert isinstance(reply, Started), reply
        return reply.work_id

    async def outcome(self, work_id: str) -> Outcome:
        with trio.fail_after(self._hang_guard):
            while work_id not in self.outcomes:
                await self.changed.wait()
        return self.outcomes[work_id]

    async def call(
        self,
        tool: str,
        arguments: dict[str, Any],
        workspace: str | None = None,
        restriction: dict[str, Any] | None = None,
    ) -> Outcome:
        return await self.outcome(self.start(tool, arguments, workspace, restriction))
