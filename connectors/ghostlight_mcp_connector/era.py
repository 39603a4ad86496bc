"""Which dated revision serves this stdio process, and the rules for traffic of the other one.

Sans-IO. ``server/discover`` never pins; a successful ``initialize`` pins 2025-11-25; the first
other request a 2026-07-28 handler accepts pins 2026-07-28. After pinning, mixing is refused.
The pin only decides which requests are accepted; 2026-07-28 still validates every request.
"""

from __future__ import annotations

import logging
from typing import Literal

from ghostlight_trio.transport.bridge import Message

from . import jsonrpc
from .actions import Action, WriteMessage
from .handler import RevisionHandler, ServerFacts
from .jsonrpc import (
    Ignored,
    InboundResponse,
    Malformed,
    Notification,
    OversizedLine,
    Request,
)
from .mcp_2025_11_25 import Mcp20251125
from .mcp_2026_07_28 import REVISION as REVISION_2026_07_28
from .mcp_2026_07_28 import UNSUPPORTED_PROTOCOL_VERSION, Mcp20260728, is_2026_07_28_shaped

Era = Literal["unpinned", "2025-11-25", "2026-07-28"]

_log = logging.getLogger(__name__)


class EraRouter:
    """The whole sans-IO edge: lines and bridge events in, actions out."""

    def __init__(
        self,
        *,
        server_info: jsonrpc.JsonObject,
        instructions_2025: str,
        instructions_2026: str,
        page_size: int,
    ) -> None:
        self.era: Era = "unpinned"
        # Both are made now (an unused one holds nothing); pinning drops the other.
        self._h2025: Mcp20251125 | None = Mcp20251125(
            ServerFacts(server_info, instructions_2025, page_size)
        )
        self._h2026: Mcp20260728 | None = Mcp20260728(
            ServerFacts(server_info, instructions_2026, page_size)
        )
        self._pinned: RevisionHandler | None = None
        """The handler serving this process once the era is pinned."""

    # --- stdin ---------------------------------------------------------------------------------

    def receive_line(self, line: bytes | OversizedLine) -> list[Action]:
        item = jsonrpc.classify(line)
        if isinstance(item, Malformed):
            return [WriteMessage(jsonrpc.malformed_response(item))]
        if isinstance(item, Ignored):
            _log.info("ignored input: %s", item.reason)
            return []
        if isinstance(item, InboundResponse):
            _log.info("ignored a response object from the client (this server sends no requests)")
            return []
        if isinstance(item, Notification):
            return self._pinned.receive_notification(item) if self._pinned else []
        return self._request(item)

    def _request(self, request: Request) -> list[Action]:
        if self.era == "2025-11-25":
            return self._request_2025(request)
        if self.era == "2026-07-28":
            return self._request_2026(request)
        if request.method == "initialize":
            reply = self._handler_2025_11_25().receive_request(request)
            if reply.accepted:
                self._pin("2025-11-25")
            return reply.actions
        if is_2026_07_28_shaped(request.params) or request.method == "server/discover":
            reply = self._handler_2026_07_28().receive_request(request)
            if reply.accepted and request.method != "server/discover":
                self._pin("2026-07-28")
            return reply.actions
        if request.method == "ping":
            return [WriteMessage(jsonrpc.result(request.id, {}))]
        message = (
            "Invalid params: send initialize first (MCP 2025-11-25), or carry per-request"
            f" _meta with {REVISION_2026_07_28} protocolVersion and clientCapabilities"
        )
        return [WriteMessage(jsonrpc.error(request.id, jsonrpc.INVALID_PARAMS, message))]

    def _request_2025(self, request: Request) -> list[Action]:
        if request.method == "server/discover":
            message = "Method not found: server/discover (this connection uses 2025-11-25)"
            return [WriteMessage(jsonrpc.error(request.id, jsonrpc.METHOD_NOT_FOUND, message))]
        if request.method != "initialize" and is_2026_07_28_shaped(request.params):
            message = (
                "Invalid Request: this connection is pinned to MCP 2025-11-25 by initialize;"
                " 2026-07-28 requests need a new connection"
            )
            return [WriteMessage(jsonrpc.error(request.id, jsonrpc.INVALID_REQUEST, message))]
        return self._handler_2025_11_25().receive_request(request).actions

    def _request_2026(self, request: Request) -> list[Action]:
        if request.method == "initialize":
            requested = (request.params or {}).get("protocolVersion")
            data = {
                "supported": [REVISION_2026_07_28],
                "requested": requested if isinstance(requested, str) else "",
            }
            message = "Unsupported protocol version: this connection speaks 2026-07-28 only"
            return [
                WriteMessage(jsonrpc.error(request.id, UNSUPPORTED_PROTOCOL_VERSION, message, data))
            ]
        return self._handler_2026_07_28().receive_request(request).actions

    # --- bridge and lifetime: the pinned handler's, nothing before a pin ---------------------

    def receive_bridge(self, message: Message) -> list[Action]:
        return self._pinned.receive_bridge(message) if self._pinned else []

    def bridge_connected(self) -> list[Action]:
        return self._pinned.bridge_connected() if self._pinned else []

    def bridge_failed(self, reason: str) -> list[Action]:
        return self._pinned.bridge_failed(reason) if self._pinned else []

    def bridge_lost(self) -> list[Action]:
        return self._pinned.bridge_lost() if self._pinned else []

    def close(self) -> list[Action]:
        return self._pinned.close() if self._pinned else []

    def input_ended(self) -> list[Action]:
        """stdin ended: what can end at once does; requests already read are still answered."""
        return self._pinned.input_ended() if self._pinned else []

    def owed(self) -> int:
        """How many requests already read still wait for their answer (the runtime keeps
        running after stdin ends until there are none)."""
        return self._pinned.owed() if self._pinned else 0

    def give_up(self, reason: str) -> list[Action]:
        """Stop waiting (``reason`` says why): each request still owed gets an honest error."""
        return self._pinned.give_up(reason) if self._pinned else []

    def awaiting_service(self) -> bool:
        """Whether something sent to the service still waits for its answer (the runtime
        then checks that a silent service still answers at all)."""
        return self._pinned.awaiting_service() if self._pinned else False

    # --- internals -----------------------------------------------------------------------------

    def _pin(self, era: Era) -> None:
        self.era = era
        if era == "2025-11-25":
            self._pinned, self._h2026 = self._handler_2025_11_25(), None
        else:
            self._pinned, self._h2025 = self._handler_2026_07_28(), None
            self._handler_2026_07_28().advertise_2025_11_25 = False
        _log.info("serving MCP %s", era)

    def _handler_2025_11_25(self) -> Mcp20251125:
        assert self._h2025 is not None, "not once 2026-07-28 is pinned"
        return self._h2025

    def _handler_2026_07_28(self) -> Mcp20260728:
        assert self._h2026 is not None, "not once 2025-11-25 is pinned"
        return self._h2026
