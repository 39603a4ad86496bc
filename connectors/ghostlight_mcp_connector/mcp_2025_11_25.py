"""MCP 2025-11-25 at the stdio shore: the initialize lifecycle and one implicit workspace.

A pure state machine (h11 style). It is fed decoded JSON-RPC messages and bridge events and
returns actions; it never performs I/O. The workspace is opened after a successful initialize,
supplied on every call, reattached after a bridge loss and released on clean shutdown.
"""

from __future__ import annotations

import logging
from typing import Any, Final, Literal

import attrs

from ghostlight_trio.transport.bridge import (
    CatalogChanged,
    CatalogProjection,
    Message,
    Outcome,
    Rejected,
    ReleaseWorkspace,
    TextBlock,
    WorkspaceOpened,
)
from ghostlight_trio.untrusted.excerpt import excerpt

from . import failures, jsonrpc
from .actions import Action, Reply, SendBridge, WriteMessage
from .call_events import answer_call_event
from .call_params import call_target
from .correlation import CallBook, Completed
from .endings import cancelled, connection_failed, connection_lost, given_up
from .handler import RevisionHandler, ServerFacts
from .implicit_workspace import ImplicitWorkspace
from .jsonrpc import JsonObject, Notification, Request
from .link import Link
from .rendering import content_json, progress_token, tool_json
from .replies import id_in_use, invalid_params
from .restriction import restriction_from_meta
from .tool_list import ToolList

REVISION: Final = "2025-11-25"
CAPABILITIES: Final[JsonObject] = {"tools": {"listChanged": True}}

_log = logging.getLogger(__name__)

Lifecycle = Literal["new", "awaiting_initialized", "operational"]


WORKSPACE_REPLACED = (
    "Note: the Ghostlight service restarted and could not keep this session's workspace, so a"
    " new one was opened: tab ids from before are no longer yours (those tabs may still be open"
    " in the browser). Call tabs_context_mcp to see your tabs now."
)


def _initialize_problem(params: JsonObject | None) -> str | None:
    if params is None:
        return "initialize requires params"
    if not isinstance(params.get("protocolVersion"), str):
        return "initialize params.protocolVersion must be a string"
    if not isinstance(params.get("capabilities"), dict):
        return "initialize params.capabilities must be an object"
    info = params.get("clientInfo")
    if not isinstance(info, dict):
        return "initialize params.clientInfo must be an object"
    if not isinstance(info.get("name"), str) or not isinstance(info.get("version"), str):
        return "initialize params.clientInfo needs string name and version"
    return None


class Mcp20251125(RevisionHandler):
    """One stdio process speaking 2025-11-25."""

    def __init__(self, facts: ServerFacts) -> None:
        self._facts = facts
        self.lifecycle: Lifecycle = "new"
        self.book = CallBook()
        self.link = Link()
        self.tools = ToolList(
            self.link, self.book.next_sequence, page_size=facts.page_size, render=tool_json,
            finish=lambda _waiter, _projection, body: body,
        )
        self.workspace = ImplicitWorkspace()
        self._client_label = ""
        self._restriction: dict[str, Any] | None = None

    # --- JSON-RPC requests -------------------------------------------------------------------

    def receive_request(self, request: Request) -> Reply:
        method, request_id = request.method, request.id
        if method == "initialize":
            return self._initialize(request)
        if method == "ping":
            return Reply([WriteMessage(jsonrpc.result(request_id, {}))])
        if self.lifecycle == "new":
            return invalid_params(request_id, "Invalid params: send initialize first")
        if method not in ("tools/list", "tools/call"):
            return Reply(
                [
                    WriteMessage(
                        jsonrpc.error(
                            request_id,
                            jsonrpc.METHOD_NOT_FOUND,
                            f"Method not found: {excerpt(method)}",
                        )
                    )
                ]
            )
        if self.lifecycle != "operational":
            message = "Invalid Request: send notifications/initialized before other requests"
            return Reply(
                [WriteMessage(jsonrpc.error(request_id, jsonrpc.INVALID_REQUEST, message))]
            )
        if method == "tools/list":
            return self._tools_list(request)
        return self._tools_call(request)

    def _initialize(self, request: Request) -> Reply:
        if self.lifecycle != "new":
            message = "Invalid Request: already initialized"
            return Reply(
                [WriteMessage(jsonrpc.error(request.id, jsonrpc.INVALID_REQUEST, message))]
            )
        problem = _initialize_problem(request.params)
        if problem is not None:
            return invalid_params(request.id, f"Invalid params: {problem}")
        assert request.params is not None
        self._client_label = str(request.params["clientInfo"]["name"])[:120]
        self._restriction = restriction_from_meta(request.params.get("_meta"))
        self.lifecycle = "awaiting_initialized"
        answer: JsonObject = {
            "protocolVersion": REVISION,
            "capabilities": CAPABILITIES,
            "serverInfo": self._facts.info,
            "instructions": self._facts.instructions,
        }
        actions: list[Action] = [WriteMessage(jsonrpc.result(request.id, answer))]
        actions += self._open_workspace()
        return Reply(actions, accepted=True)

    def _tools_list(self, request: Request) -> Reply:
        return self.tools.request(request, in_use=self._id_in_use(request))

    def _tools_call(self, request: Request) -> Reply:
        target = call_target(request)
        if isinstance(target, Reply):
            return target
        if self._id_in_use(request):
            return id_in_use(request.id)
        self.book.add(
            request.id,
            target.name,
            target.arguments,
            workspace_id=self.workspace.handle,
            client_label=self._client_label,
            restriction=self._restriction,
            progress_token=progress_token(request.params or {}),
        )
        return Reply(self._pump(), accepted=True)

    def _id_in_use(self, request: Request) -> bool:
        return self.book.is_active(request.id) or self.tools.store.is_waiting(request.id)

    # --- JSON-RPC notifications --------------------------------------------------------------

    def receive_notification(self, note: Notification) -> list[Action]:
        if note.method == "notifications/initialized":
            if self.lifecycle == "awaiting_initialized":
                self.lifecycle = "operational"
            return []
        if note.method == "notifications/cancelled":
            request_id = (note.params or {}).get("requestId")
            if not jsonrpc.is_request_id(request_id):
                return []
            return cancelled(self.book, self.tools, self.link, request_id)
        return []

    # --- bridge --------------------------------------------------------------------------------

    def receive_bridge(self, message: Message) -> list[Action]:
        if isinstance(message, WorkspaceOpened):
            return self._workspace_opened(message)
        if isinstance(message, Rejected) and self.workspace.answers(message):
            return self._workspace_refused(message)
        if isinstance(message, CatalogProjection):
            return self._catalog_arrived(message)
        if isinstance(message, CatalogChanged):
            return self._catalog_changed(message)
        if isinstance(message, Outcome) and self.workspace.take_replacement():
            # The first answer in the new workspace says so: the agent's tab ids are now void.
            notice = TextBlock(text=WORKSPACE_REPLACED)
            message = attrs.evolve(message, content=[notice, *message.content])
        return answer_call_event(
            self.book, message, render_result=_render_result, wrap_result=lambda body: body
        )

    def bridge_connected(self) -> list[Action]:
        actions: list[Action] = [SendBridge(m) for m in self.link.connected()]
        return actions + self._pump()

    def bridge_failed(self, reason: str) -> list[Action]:
        """A connection attempt failed: everything waiting for it ends as "not sent"."""
        retry = self.link.failed()
        if retry:
            return retry
        self.workspace.connection_failed()
        return connection_failed(self.book, self.tools, reason)

    def bridge_lost(self) -> list[Action]:
        self.link.lost()
        self.workspace.connection_lost()
        return connection_lost(self.book, self.tools)

    def awaiting_service(self) -> bool:
        """Whether something sent to the service still waits for its answer."""
        return (
            self.book.awaiting_service()
            or self.tools.store.fetching
            or (self.workspace.state == "opening" and self.link.is_up)
        )

    def owed(self) -> int:
        """How many requests already read still wait for their answer."""
        return self.book.owed() + self.tools.store.owed()

    def input_ended(self) -> list[Action]:
        """stdin ended: the workspace stays until the calls already read have their answers."""
        return []

    def give_up(self, reason: str) -> list[Action]:
        """Stop waiting for the service: every request still owed an answer gets an error."""
        return given_up(self.book, self.tools, reason)

    def close(self) -> list[Action]:
        """Clean shutdown (stdin EOF, parent gone): release the implicit workspace."""
        if self.workspace.handle is not None and self.link.is_up:
            return [SendBridge(ReleaseWorkspace(workspace_id=self.workspace.handle))]
        return []

    # --- internals -----------------------------------------------------------------------------

    def _open_workspace(self) -> list[Action]:
        opening = self.workspace.open(self.book.next_sequence(), self._client_label)
        return self.link.send(opening)

    def _workspace_opened(self, message: WorkspaceOpened) -> list[Action]:
        if not self.workspace.answers(message):
            return []
        self.workspace.opened(message)
        return self._pump()

    def _workspace_refused(self, message: Rejected) -> list[Action]:
        self.workspace.refused(message)
        text = f"Ghostlight could not open a workspace: {message.message}"
        data = {"nextStep": message.next_step or failures.UNAVAILABLE_NEXT_STEP}
        return [
            WriteMessage(jsonrpc.error(call.request_id, failures.SERVICE_UNAVAILABLE, text, data))
            for call in self.book.take_queued()
        ]

    def _pump(self) -> list[Action]:
        """Send queued calls once the link is up and the workspace is open; else get there."""
        queued = self.book.queued()
        if not queued:
            return []
        if self.workspace.state == "open" and self.link.is_up:
            actions: list[Action] = []
            for call in queued:
                call.start = attrs.evolve(call.start, workspace_id=self.workspace.handle)
                self.book.mark_sent(call)
                actions.append(SendBridge(call.start))
            return actions
        if self.workspace.state == "none":
            return self._open_workspace()
        return self.link.request_connection()

    def _catalog_arrived(self, message: CatalogProjection) -> list[Action]:
        pages, changed = self.tools.arrived(message)
        if changed and self.lifecycle == "operational":
            pages.append(WriteMessage(jsonrpc.notification("notifications/tools/list_changed")))
        return pages

    def _catalog_changed(self, message: CatalogChanged) -> list[Action]:
        fetch = self.tools.changed(message, refetch=self.link.is_up)
        if fetch is None:
            return []
        actions: list[Action] = []
        if self.lifecycle == "operational":
            actions.append(WriteMessage(jsonrpc.notification("notifications/tools/list_changed")))
        return actions + fetch


def _render_result(completed: Completed) -> WriteMessage:
    """A call that ran to an outcome: its content, structured content and error flag."""
    outcome = completed.outcome
    answer: JsonObject = {"content": content_json(outcome.content)}
    if outcome.structured is not None:
        answer["structuredContent"] = outcome.structured
    if outcome.kind != "ok":
        answer["isError"] = True
    return WriteMessage(jsonrpc.result(completed.call.request_id, answer))
