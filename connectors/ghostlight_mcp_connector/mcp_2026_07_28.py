"""MCP 2026-07-28 at the stdio shore: per-request metadata, no handshake, explicit workspaces.

A pure state machine (h11 style): fed decoded JSON-RPC messages and bridge events, it returns
actions. Every request is validated on its own ``_meta``; nothing is borrowed from an earlier
request. Workspace continuity is an ordinary ``workspaceId`` tool argument, never the process.
"""

from __future__ import annotations

import copy
from typing import Any, Final

import attrs

from ghostlight_trio.transport.bridge import (
    CatalogChanged,
    CatalogProjection,
    Message,
    RequestContext,
    Start,
    TextBlock,
    ToolDescriptor,
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
from .pagination import (
    DEFAULT_PAGE_SIZE,
    INVALID_CURSOR_MESSAGE,
    cursor_is_well_formed,
    tools_page,
)
from .rendering import content_json, progress_token, tool_json
from .replies import given_up, id_in_use, invalid_cursor, invalid_params, lost, unavailable
from .restriction import restriction_from_meta

REVISION: Final = "2026-07-28"
LEGACY_REVISION: Final = "2025-11-25"
UNSUPPORTED_PROTOCOL_VERSION: Final = -32022
CAPABILITIES: Final[JsonObject] = {"tools": {"listChanged": True}}

VERSION_KEY: Final = "io.modelcontextprotocol/protocolVersion"
CAPABILITIES_KEY: Final = "io.modelcontextprotocol/clientCapabilities"
CLIENT_INFO_KEY: Final = "io.modelcontextprotocol/clientInfo"
LOG_LEVEL_KEY: Final = "io.modelcontextprotocol/logLevel"
SERVER_INFO_KEY: Final = "io.modelcontextprotocol/serverInfo"
SUBSCRIPTION_KEY: Final = "io.modelcontextprotocol/subscriptionId"
LOG_LEVELS: Final = frozenset(
    {"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}
)
REMOVED_METHODS: Final = frozenset(
    {
        "initialize",
        "ping",
        "logging/setLevel",
        "resources/subscribe",
        "resources/unsubscribe",
    }
)

DISCOVER_TTL_MS: Final = 300_000
LIST_TTL_MS: Final = 30_000

WORKSPACE_PROPERTY: Final[JsonObject] = {
    "type": "string",
    "description": (
        "Workspace handle returned by tabs_context_mcp or tabs_create_mcp; pass it on every"
        " call that works with tabs."
    ),
}
WORKSPACE_OUTPUT_PROPERTY: Final[JsonObject] = {"type": "string"}


@attrs.frozen
class RequestMeta:
    """What one request says about its caller; used for that request only."""

    client_label: str
    progress_token: str | int | None
    restriction: dict[str, Any] | None = None


@attrs.frozen
class _ListWaiter:
    request_id: RequestId
    cursor: str | None
    private: bool = False
    """The caller sent a restriction: what it may use depends on it, so never share the list."""


class _MetaError(Exception):
    def __init__(self, reply: JsonObject) -> None:
        super().__init__()
        self.reply = reply


def is_modern_shaped(params: JsonObject | None) -> bool:
    """The detection key: ``params._meta`` names a protocol version (a bare _meta does not)."""
    meta = (params or {}).get("_meta")
    return isinstance(meta, dict) and VERSION_KEY in meta


class Mcp20260728:
    """One stdio process speaking 2026-07-28; state is only the bridge, caches and streams."""

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
        self.advertise_legacy = True
        """While no era is pinned, errors and discovery also name 2025-11-25 (via initialize)."""
        self.book = CallBook()
        self.link = Link()
        self.catalog: CatalogStore[_ListWaiter] = CatalogStore()
        self.subscriptions: dict[RequestId, bool] = {}
        """Open subscriptions/listen streams: id -> whether tool-list changes were asked for."""

    @property
    def supported_versions(self) -> list[str]:
        return [REVISION, LEGACY_REVISION] if self.advertise_legacy else [REVISION]

    # --- JSON-RPC requests -------------------------------------------------------------------

    def receive_request(self, request: Request) -> Reply:
        try:
            meta = self._validate_meta(request)
        except _MetaError as problem:
            return Reply([WriteMessage(problem.reply)])
        method = request.method
        if method == "server/discover":
            return Reply([WriteMessage(jsonrpc.result(request.id, self._discover()))])
        if method == "tools/list":
            return self._tools_list(request, meta)
        if method == "tools/call":
            return self._tools_call(request, meta)
        if method == "subscriptions/listen":
            return self._listen(request)
        detail = " (removed in 2026-07-28)" if method in REMOVED_METHODS else ""
        message = f"Method not found: {excerpt(method)}{detail}"
        return Reply([WriteMessage(jsonrpc.error(request.id, jsonrpc.METHOD_NOT_FOUND, message))])

    def _validate_meta(self, request: Request) -> RequestMeta:
        def invalid(message: str) -> _MetaError:
            return _MetaError(
                jsonrpc.error(request.id, jsonrpc.INVALID_PARAMS, f"Invalid params: {message}")
            )

        params = request.params
        meta = None if params is None else params.get("_meta")
        if not isinstance(meta, dict):
            raise invalid(f"params._meta with {VERSION_KEY} is required")
        version = meta.get(VERSION_KEY)
        if not isinstance(version, str):
            raise invalid(f"_meta[{VERSION_KEY!r}] must be a string")
        if version != REVISION:
            message = f"Unsupported protocol version: {version}"
            if version == LEGACY_REVISION:
                message += " (2025-11-25 is served only through initialize)"
            data = {"supported": self.supported_versions, "requested": version}
            raise _MetaError(jsonrpc.error(request.id, UNSUPPORTED_PROTOCOL_VERSION, message, data))
        if not isinstance(meta.get(CAPABILITIES_KEY), dict):
            raise invalid(f"_meta[{CAPABILITIES_KEY!r}] must be an object")
        info = meta.get(CLIENT_INFO_KEY)
        if info is not None and not isinstance(info, dict):
            raise invalid(f"_meta[{CLIENT_INFO_KEY!r}] must be an object")
        level = meta.get(LOG_LEVEL_KEY)
        if level is not None and (not isinstance(level, str) or level not in LOG_LEVELS):
            raise invalid(f"_meta[{LOG_LEVEL_KEY!r}] must be one of {sorted(LOG_LEVELS)}")
        name = info.get("name") if isinstance(info, dict) else None
        token = progress_token(params or {})
        return RequestMeta(
            client_label=name[:120] if isinstance(name, str) else "",
            progress_token=token,
            restriction=restriction_from_meta(meta),
        )

    def _envelope(self, body: JsonObject) -> JsonObject:
        answer: JsonObject = {"resultType": "complete"}
        answer.update(body)
        answer["_meta"] = {SERVER_INFO_KEY: self._server_info}
        return answer

    def _discover(self) -> JsonObject:
        return self._envelope(
            {
                "supportedVersions": self.supported_versions,
                "capabilities": CAPABILITIES,
                "instructions": self._instructions,
                "ttlMs": DISCOVER_TTL_MS,
                "cacheScope": "public",
            }
        )

    def _tools_list(self, request: Request, meta: RequestMeta) -> Reply:
        cursor = (request.params or {}).get("cursor")
        if cursor is not None and not isinstance(cursor, str):
            return invalid_params(request.id, "Invalid params: cursor must be a string")
        if cursor is not None and not cursor_is_well_formed(cursor):
            return invalid_params(request.id, INVALID_CURSOR_MESSAGE)
        if self._id_in_use(request.id):
            return id_in_use(request.id)
        waiter = _ListWaiter(request.id, cursor, private=meta.restriction is not None)
        projection = self.catalog.projection
        if projection is not None:
            return Reply([self._list_page(waiter, projection)], accepted=True)
        self.catalog.park(waiter)
        return Reply(self._fetch_catalog(), accepted=True)

    def _tools_call(self, request: Request, meta: RequestMeta) -> Reply:
        target = call_target(request)
        if isinstance(target, Reply):
            return target
        if self._id_in_use(request.id):
            return id_in_use(request.id)
        arguments = dict(target.arguments)
        workspace_id = arguments.pop("workspaceId", None)
        if workspace_id is not None and not isinstance(workspace_id, str):
            text = "workspaceId must be the string returned by tabs_context_mcp or tabs_create_mcp."
            answer = self._envelope({"content": [{"type": "text", "text": text}], "isError": True})
            return Reply([WriteMessage(jsonrpc.result(request.id, answer))], accepted=True)
        start = Start(
            sequence=self.book.next_sequence(),
            operation=target.name,
            arguments=arguments,
            workspace_id=workspace_id,
            context=RequestContext(
                client_label=meta.client_label,
                wants_progress=meta.progress_token is not None,
                restriction=meta.restriction,
            ),
        )
        call = PendingCall(request_id=request.id, start=start, progress_token=meta.progress_token)
        self.book.add(call)
        actions = self.link.send(start)
        if self.link.is_up:
            self.book.mark_sent(call)
        return Reply(actions, accepted=True)

    def _listen(self, request: Request) -> Reply:
        wanted = (request.params or {}).get("notifications")
        if not isinstance(wanted, dict):
            return invalid_params(
                request.id, "Invalid params: subscriptions/listen needs a notifications object"
            )
        if self._id_in_use(request.id):
            return id_in_use(request.id)
        tools = wanted.get("toolsListChanged") is True
        self.subscriptions[request.id] = tools
        honoured: JsonObject = {"toolsListChanged": True} if tools else {}
        ack = jsonrpc.notification(
            "notifications/subscriptions/acknowledged",
            {"_meta": {SUBSCRIPTION_KEY: request.id}, "notifications": honoured},
        )
        actions: list[Action] = [WriteMessage(ack)]
        if tools:
            actions += self.link.request_connection()  # changes arrive over the bridge
        return Reply(actions, accepted=True)

    def _id_in_use(self, request_id: RequestId) -> bool:
        return (
            self.book.is_active(request_id)
            or self.catalog.is_waiting(request_id)
            or request_id in self.subscriptions
        )

    # --- JSON-RPC notifications --------------------------------------------------------------

    def receive_notification(self, note: Notification) -> list[Action]:
        if note.method != "notifications/cancelled":
            return []  # 2026-07-28 clients send no other notification; ignore the rest
        request_id = (note.params or {}).get("requestId")
        if not jsonrpc.is_request_id(request_id):
            return []
        if self.subscriptions.pop(request_id, None) is not None:
            return []
        self.catalog.withdraw(request_id)
        call = self.book.get(request_id)
        if call is not None and call.stage == "queued":
            # Its Start still waits in the link for the bridge: it must not go out later, or
            # the service would run a call its client cancelled before anything was sent.
            self.link.withdraw(call.start)
        return [SendBridge(m) for m in self.book.cancel(request_id)]

    # --- bridge --------------------------------------------------------------------------------

    def receive_bridge(self, message: Message) -> list[Action]:
        if isinstance(message, CatalogProjection):
            return self._catalog_arrived(message)
        if isinstance(message, CatalogChanged):
            return self._catalog_changed(message)
        return answer_call_event(
            self.book, message, render_result=self._render_result, wrap_result=self._envelope
        )

    def bridge_connected(self) -> list[Action]:
        held = self.link.connected()
        for call in self.book.queued():
            self.book.mark_sent(call)
        actions: list[Action] = [SendBridge(m) for m in held]
        if self._wants_changes() and self.catalog.projection is None:
            actions += self._fetch_catalog()  # learn whether a restart changed the tool set
        return actions

    def bridge_failed(self, reason: str) -> list[Action]:
        retry = self.link.failed()
        if retry:
            return retry
        message = failures.unavailable_message(reason)
        actions: list[Action] = [
            unavailable(call.request_id, message) for call in self.book.take_queued()
        ]
        actions += self._fail_list_waiters(message)
        return actions

    def bridge_lost(self) -> list[Action]:
        self.link.lost()
        actions: list[Action] = [lost(call) for call in self.book.end_all()]
        actions += self._fail_list_waiters(failures.unavailable_message("connection lost"))
        self.catalog.invalidate(announce_if_changed=True)
        if self._wants_changes():
            # Back to a service that runs (a restart's new one), but never start one for a
            # listen alone: a service the user stopped stays stopped until a request needs it.
            actions += self.link.request_connection(launch=False)
        return actions

    def awaiting_service(self) -> bool:
        """Whether something sent to the service still waits for its answer."""
        return self.book.awaiting_service() or self.catalog.fetching

    def owed(self) -> int:
        """How many requests already read still wait for their answer (an open stream waits
        for none: it is ended, not answered)."""
        return self.book.owed() + self.catalog.owed()

    def input_ended(self) -> list[Action]:
        """stdin ended: no one can follow a stream any more, so each ends now."""
        return self.close()

    def give_up(self, reason: str) -> list[Action]:
        """Stop waiting for the service: every request still owed an answer gets an error."""
        return given_up(self.book, self.catalog, reason)

    def close(self) -> list[Action]:
        """Server-initiated end of every open stream: the graceful closure result for each."""
        actions: list[Action] = []
        for subscription_id in self.subscriptions:
            answer = {"resultType": "complete", "_meta": {SUBSCRIPTION_KEY: subscription_id}}
            actions.append(WriteMessage(jsonrpc.result(subscription_id, answer)))
        self.subscriptions.clear()
        return actions

    # --- internals -----------------------------------------------------------------------------

    def _wants_changes(self) -> bool:
        return any(self.subscriptions.values())

    def _fetch_catalog(self) -> list[Action]:
        return self.catalog.fetch(self.link, self.book.next_sequence)

    def _catalog_arrived(self, message: CatalogProjection) -> list[Action]:
        accepted = self.catalog.accept(message)
        if accepted is None:
            return []
        actions: list[Action] = [self._list_page(w, message) for w in accepted.waiters]
        if accepted.announce:
            actions += self._announce_change()
        return actions

    def _catalog_changed(self, message: CatalogChanged) -> list[Action]:
        if not self.catalog.is_news(message):
            return []
        waiting = self.catalog.fetching
        self.catalog.invalidate()
        actions = self._announce_change()
        if waiting:
            actions += self._fetch_catalog()
        return actions

    def _announce_change(self) -> list[Action]:
        return [
            WriteMessage(
                jsonrpc.notification(
                    "notifications/tools/list_changed",
                    {"_meta": {SUBSCRIPTION_KEY: subscription_id}},
                )
            )
            for subscription_id, tools in self.subscriptions.items()
            if tools
        ]

    def _list_page(self, waiter: _ListWaiter, projection: CatalogProjection) -> WriteMessage:
        body = tools_page(
            waiter.cursor, projection, self._page_size,
            lambda start, stop: self.catalog.rendered(start, stop, _tool_json),
        )
        if body is None:
            return invalid_cursor(waiter.request_id)
        private = projection.restricted or waiter.private
        body["ttlMs"] = 0 if private else LIST_TTL_MS
        body["cacheScope"] = "private" if private else "public"
        return WriteMessage(jsonrpc.result(waiter.request_id, self._envelope(body)))

    def _fail_list_waiters(self, message: str) -> list[Action]:
        return [unavailable(waiter.request_id, message) for waiter in self.catalog.abandon()]

    def _render_result(self, completed: Completed) -> WriteMessage:
        """A call that ran to an outcome; a new workspace's handle is both data and text."""
        outcome, request_id = completed.outcome, completed.call.request_id
        content = list(outcome.content)
        structured = outcome.structured
        if outcome.kind == "ok" and outcome.workspace_id is not None:
            structured = dict(structured or {})
            structured["workspaceId"] = outcome.workspace_id
            content.append(
                TextBlock(
                    text=f"workspaceId: {outcome.workspace_id} (pass it as workspaceId to every"
                    " later tab tool)"
                )
            )
        body: JsonObject = {"content": content_json(content)}
        if structured is not None:
            body["structuredContent"] = structured
        if outcome.kind != "ok":
            body["isError"] = True
        return WriteMessage(jsonrpc.result(request_id, self._envelope(body)))


def _tool_json(tool: ToolDescriptor) -> JsonObject:
    """The shared Tool shape plus this revision's explicit workspace handle."""
    rendered = tool_json(tool)
    if tool.workspace_use == "independent":
        return rendered
    schema = rendered["inputSchema"]
    properties = schema.setdefault("properties", {})
    properties["workspaceId"] = copy.deepcopy(WORKSPACE_PROPERTY)
    if tool.workspace_use == "creates":
        output: dict[str, Any] = rendered.get("outputSchema") or {
            "type": "object",
            "properties": {},
        }
        output.setdefault("properties", {})["workspaceId"] = copy.deepcopy(
            WORKSPACE_OUTPUT_PROPERTY
        )
        required = output.setdefault("required", [])
        if "workspaceId" not in required:
            required.append("workspaceId")
        if "outputSchema" not in rendered:
            annotations = rendered.pop("annotations", None)
            rendered["outputSchema"] = output
            if annotations is not None:
                rendered["annotations"] = annotations
    return rendered
