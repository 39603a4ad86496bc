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
    OpenWorkspace,
    Outcome,
    Rejected,
    ReleaseWorkspace,
    RequestContext,
    Start,
    TextBlock,
    WorkspaceOpened,
)
from ghostlight_trio.untrusted.excerpt import excerpt

from . import failures, jsonrpc
from .actions import Action, Reply, SendBridge, WriteMessage
from .call_events import answer_call_event
from .call_params import call_target
from .catalog_store import CatalogStore
from .correlation import CallBook, Completed, PendingCall
from .jsonrpc import JsonObject, Notification, Request, RequestId
from .link import Link
from .pagination import DEFAULT_PAGE_SIZE, tools_page
from .rendering import content_json, progress_token, tool_json
from .replies import given_up, id_in_use, invalid_cursor, invalid_params, lost, unavailable
from .restriction import restriction_from_meta

REVISION: Final = "2025-11-25"
CAPABILITIES: Final[JsonObject] = {"tools": {"listChanged": True}}

_log = logging.getLogger(__name__)

Lifecycle = Literal["new", "awaiting_initialized", "operational"]
WorkspaceState = Literal["none", "opening", "open"]


WORKSPACE_REPLACED = (
    "Note: the Ghostlight service restarted and could not keep this session's workspace, so a"
    " new one was opened: tab ids from before are no longer yours (those tabs may still be open"
    " in the browser). Call tabs_context_mcp to see your tabs now."
)


@attrs.frozen
class _ListWaiter:
    request_id: RequestId
    cursor: str | None


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


class Mcp20251125:
    """One stdio process speaking 2025-11-25."""

    def __init__(
        self,
        *,
        server_info: JsonObject,
        instructions: str,
        page_size: int = DEFAULT_PAGE_SIZE,
    ) -> None:
        self._server_info = server_info
        self._instructions = instructions
        self._page_size = page_size
        self.lifecycle: Lifecycle = "new"
        self.book = CallBook()
        self.link = Link()
        self.catalog: CatalogStore[_ListWaiter] = CatalogStore()
        self.workspace_id: str | None = None
        self.workspace_state: WorkspaceState = "none"
        self._workspace_sequence: int | None = None
        self._workspace_replaced = False
        """The service could not keep this session's workspace (it restarted): the next answer
        says so."""
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
            "serverInfo": self._server_info,
            "instructions": self._instructions,
        }
        actions: list[Action] = [WriteMessage(jsonrpc.result(request.id, answer))]
        actions += self._open_workspace()
        return Reply(actions, accepted=True)

    def _tools_list(self, request: Request) -> Reply:
        params = request.params or {}
        cursor = params.get("cursor")
        if cursor is not None and not isinstance(cursor, str):
            return invalid_params(request.id, "Invalid params: cursor must be a string")
        if self.book.is_active(request.id) or self.catalog.is_waiting(request.id):
            return id_in_use(request.id)
        waiter = _ListWaiter(request.id, cursor)
        projection = self.catalog.projection
        if projection is not None:
            return Reply([self._list_page(waiter, projection)], accepted=True)
        self.catalog.park(waiter)
        return Reply(self._fetch_catalog(), accepted=True)

    def _tools_call(self, request: Request) -> Reply:
        target = call_target(request)
        if isinstance(target, Reply):
            return target
        if self.book.is_active(request.id) or self.catalog.is_waiting(request.id):
            return id_in_use(request.id)
        token = progress_token(request.params or {})
        start = Start(
            sequence=self.book.next_sequence(),
            operation=target.name,
            arguments=target.arguments,
            workspace_id=self.workspace_id,
            context=RequestContext(
                client_label=self._client_label,
                wants_progress=token is not None,
                restriction=self._restriction,
            ),
        )
        self.book.add(PendingCall(request_id=request.id, start=start, progress_token=token))
        return Reply(self._pump(), accepted=True)

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
            self.catalog.withdraw(request_id)
            return [SendBridge(m) for m in self.book.cancel(request_id)]
        return []

    # --- bridge --------------------------------------------------------------------------------

    def receive_bridge(self, message: Message) -> list[Action]:
        if isinstance(message, WorkspaceOpened):
            return self._workspace_opened(message)
        if isinstance(message, Rejected) and message.sequence == self._workspace_sequence:
            return self._workspace_refused(message)
        if isinstance(message, CatalogProjection):
            return self._catalog_arrived(message)
        if isinstance(message, CatalogChanged):
            return self._catalog_changed(message)
        if isinstance(message, Outcome) and self._workspace_replaced:
            # The first answer in the new workspace says so: the agent's tab ids are now void.
            self._workspace_replaced = False
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
        if self.workspace_state == "opening":
            self.workspace_state = "none"
        self._workspace_sequence = None
        message = failures.unavailable_message(reason)
        actions: list[Action] = [
            unavailable(call.request_id, message) for call in self.book.take_queued()
        ]
        actions += self._fail_list_waiters(message)
        return actions

    def bridge_lost(self) -> list[Action]:
        self.link.lost()
        self.workspace_state = "none"
        self._workspace_sequence = None
        actions: list[Action] = [lost(call) for call in self.book.end_all()]
        actions += self._fail_list_waiters(failures.unavailable_message("connection lost"))
        self.catalog.invalidate(announce_if_changed=True)
        return actions

    def awaiting_service(self) -> bool:
        """Whether something sent to the service still waits for its answer."""
        return (
            self.book.awaiting_service()
            or self.catalog.fetching
            or (self.workspace_state == "opening" and self.link.is_up)
        )

    def owed(self) -> int:
        """How many requests already read still wait for their answer."""
        return self.book.owed() + self.catalog.owed()

    def input_ended(self) -> list[Action]:
        """stdin ended: the workspace stays until the calls already read have their answers."""
        return []

    def give_up(self, reason: str) -> list[Action]:
        """Stop waiting for the service: every request still owed an answer gets an error."""
        return given_up(self.book, self.catalog, reason)

    def close(self) -> list[Action]:
        """Clean shutdown (stdin EOF, parent gone): release the implicit workspace."""
        if self.workspace_id is not None and self.link.is_up:
            return [SendBridge(ReleaseWorkspace(workspace_id=self.workspace_id))]
        return []

    # --- internals -----------------------------------------------------------------------------

    def _open_workspace(self) -> list[Action]:
        self.workspace_state = "opening"
        self._workspace_sequence = self.book.next_sequence()
        message = OpenWorkspace(
            sequence=self._workspace_sequence,
            reattach=self.workspace_id,
            client_label=self._client_label,
        )
        return self.link.send(message)

    def _workspace_opened(self, message: WorkspaceOpened) -> list[Action]:
        if message.sequence != self._workspace_sequence:
            return []
        if self.workspace_id is not None and not message.reattached:
            _log.warning("the service minted a fresh workspace; the previous one was not kept")
            self._workspace_replaced = True
        self.workspace_id = message.workspace_id
        self.workspace_state = "open"
        self._workspace_sequence = None
        return self._pump()

    def _workspace_refused(self, message: Rejected) -> list[Action]:
        self.workspace_state = "none"
        self._workspace_sequence = None
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
        if self.workspace_state == "open" and self.link.is_up:
            actions: list[Action] = []
            for call in queued:
                call.start = attrs.evolve(call.start, workspace_id=self.workspace_id)
                self.book.mark_sent(call)
                actions.append(SendBridge(call.start))
            return actions
        if self.workspace_state == "none":
            return self._open_workspace()
        return self.link.request_connection()

    def _fetch_catalog(self) -> list[Action]:
        return self.catalog.fetch(self.link, self.book.next_sequence)

    def _catalog_arrived(self, message: CatalogProjection) -> list[Action]:
        accepted = self.catalog.accept(message)
        if accepted is None:
            return []
        actions: list[Action] = [self._list_page(w, message) for w in accepted.waiters]
        if accepted.announce and self.lifecycle == "operational":
            actions.append(WriteMessage(jsonrpc.notification("notifications/tools/list_changed")))
        return actions

    def _catalog_changed(self, message: CatalogChanged) -> list[Action]:
        if not self.catalog.is_news(message):
            return []
        waiting = self.catalog.fetching
        self.catalog.invalidate()
        actions: list[Action] = []
        if self.lifecycle == "operational":
            actions.append(WriteMessage(jsonrpc.notification("notifications/tools/list_changed")))
        if waiting or self.link.is_up:
            actions += self._fetch_catalog()
        return actions

    def _list_page(self, waiter: _ListWaiter, projection: CatalogProjection) -> WriteMessage:
        body = tools_page(
            waiter.cursor, projection, self._page_size,
            lambda start, stop: self.catalog.rendered(start, stop, tool_json),
        )
        if body is None:
            return invalid_cursor(waiter.request_id)
        return WriteMessage(jsonrpc.result(waiter.request_id, body))

    def _fail_list_waiters(self, message: str) -> list[Action]:
        return [unavailable(waiter.request_id, message) for waiter in self.catalog.abandon()]


def _render_result(completed: Completed) -> WriteMessage:
    """A call that ran to an outcome: its content, structured content and error flag."""
    outcome = completed.outcome
    answer: JsonObject = {"content": content_json(outcome.content)}
    if outcome.structured is not None:
        answer["structuredContent"] = outcome.structured
    if outcome.kind != "ok":
        answer["isError"] = True
    return WriteMessage(jsonrpc.result(completed.call.request_id, answer))
