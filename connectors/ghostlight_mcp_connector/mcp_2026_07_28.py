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
    TextBlock,
    ToolDescriptor,
)
from ghostlight_trio.untrusted.excerpt import excerpt

from . import jsonrpc
from .actions import Action, Reply, SendBridge, WriteMessage
from .call_events import answer_call_event
from .call_params import call_target
from .correlation import CallBook, Completed
from .endings import cancelled, connection_failed, connection_lost, given_up
from .handler import RevisionHandler, ServerFacts
from .jsonrpc import JsonObject, Notification, Request, RequestId
from .link import Link
from .pagination import INVALID_CURSOR_MESSAGE, cursor_is_well_formed
from .rendering import content_json, progress_token, tool_json
from .replies import id_in_use, invalid_params
from .restriction import restriction_from_meta
from .tool_list import ListWaiter, ToolList

REVISION: Final = "2026-07-28"
REVISION_2025_11_25: Final = "2025-11-25"
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
    "description": "From tabs_context_mcp or tabs_create_mcp; pass it on every tab call.",
}
WORKSPACE_OUTPUT_PROPERTY: Final[JsonObject] = {"type": "string"}


@attrs.frozen
class RequestMeta:
    """What one request says about its caller; used for that request only."""

    client_label: str
    progress_token: str | int | None
    restriction: dict[str, Any] | None = None


class _MetaError(Exception):
    def __init__(self, reply: JsonObject) -> None:
        super().__init__()
        self.reply = reply


def is_2026_07_28_shaped(params: JsonObject | None) -> bool:
    """The detection key: ``params._meta`` names a protocol version (a bare _meta does not)."""
    meta = (params or {}).get("_meta")
    return isinstance(meta, dict) and VERSION_KEY in meta


class Mcp20260728(RevisionHandler):
    """One stdio process speaking 2026-07-28; state is only the bridge, caches and streams."""

    def __init__(self, facts: ServerFacts) -> None:
        self._facts = facts
        self.advertise_2025_11_25 = True
        """While no era is pinned, errors and discovery also name 2025-11-25 (via initialize)."""
        self.book = CallBook()
        self.link = Link()
        self.tools = ToolList(
            self.link, self.book.next_sequence, page_size=facts.page_size, render=_tool_json,
            finish=self._finish_page,
        )
        self.subscriptions: dict[RequestId, bool] = {}
        """Open subscriptions/listen streams: id -> whether tool-list changes were asked for."""

    @property
    def supported_versions(self) -> list[str]:
        return [REVISION, REVISION_2025_11_25] if self.advertise_2025_11_25 else [REVISION]

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
            if version == REVISION_2025_11_25:
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
        answer["_meta"] = {SERVER_INFO_KEY: self._facts.info}
        return answer

    def _discover(self) -> JsonObject:
        return self._envelope(
            {
                "supportedVersions": self.supported_versions,
                "capabilities": CAPABILITIES,
                "instructions": self._facts.instructions,
                "ttlMs": DISCOVER_TTL_MS,
                "cacheScope": "public",
            }
        )

    def _tools_list(self, request: Request, meta: RequestMeta) -> Reply:
        cursor = (request.params or {}).get("cursor")
        if isinstance(cursor, str) and not cursor_is_well_formed(cursor):
            return invalid_params(request.id, INVALID_CURSOR_MESSAGE)  # refused before anything
        return self.tools.request(
            request, in_use=self._id_in_use(request.id), restriction=meta.restriction
        )

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
        call = self.book.add(
            request.id,
            target.name,
            arguments,
            workspace_id=workspace_id,
            client_label=meta.client_label,
            restriction=meta.restriction,
            progress_token=meta.progress_token,
        )
        actions = self.link.send(call.start)
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
            or self.tools.store.is_waiting(request_id)
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
        return cancelled(self.book, self.tools, self.link, request_id)

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
        if self._wants_changes() and self.tools.store.projection is None:
            actions += self.tools.fetch()  # learn whether a restart changed the tool set
        return actions

    def bridge_failed(self, reason: str) -> list[Action]:
        retry = self.link.failed()
        if retry:
            return retry
        return connection_failed(self.book, self.tools, reason)

    def bridge_lost(self) -> list[Action]:
        self.link.lost()
        actions = connection_lost(self.book, self.tools)
        if self._wants_changes():
            # Back to a service that runs (a restart's new one), but never start one for a
            # listen alone: a service the user stopped stays stopped until a request needs it.
            actions += self.link.request_connection(launch=False)
        return actions

    def awaiting_service(self) -> bool:
        """Whether something sent to the service still waits for its answer."""
        return self.book.awaiting_service() or self.tools.fetching

    def owed(self) -> int:
        """How many requests already read still wait for their answer (an open stream waits
        for none: it is ended, not answered)."""
        return self.book.owed() + self.tools.store.owed()

    def input_ended(self) -> list[Action]:
        """stdin ended: no one can follow a stream any more, so each ends now."""
        return self.close()

    def give_up(self, reason: str) -> list[Action]:
        """Stop waiting for the service: every request still owed an answer gets an error."""
        return given_up(self.book, self.tools, reason)

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

    def _catalog_arrived(self, message: CatalogProjection) -> list[Action]:
        pages, changed = self.tools.arrived(message)
        return pages + self._announce_change() if changed else pages

    def _catalog_changed(self, message: CatalogChanged) -> list[Action]:
        fetch = self.tools.changed(message, refetch=False)
        return [] if fetch is None else self._announce_change() + fetch

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

    def _finish_page(
        self, waiter: ListWaiter, projection: CatalogProjection, body: JsonObject
    ) -> JsonObject:
        """A page may be cached only when it depends on no restriction."""
        private = projection.restricted or waiter.private
        body["ttlMs"] = 0 if private else LIST_TTL_MS
        body["cacheScope"] = "private" if private else "public"
        return self._envelope(body)

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
