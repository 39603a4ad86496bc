"""What the era router asks of a dated MCP handler (``mcp_2025_11_25``, ``mcp_2026_07_28``).

Each handler is a sans-IO state machine: fed decoded JSON-RPC messages and bridge events, it
returns actions for the runtime to perform. The router holds the one that serves this process
as a ``RevisionHandler`` and knows no more of it than this.
"""

from __future__ import annotations

from typing import Protocol

import attrs

from ghostlight_trio.transport.bridge import Message

from .actions import Action, Reply
from .jsonrpc import JsonObject, Notification, Request
from .pagination import DEFAULT_PAGE_SIZE


@attrs.frozen
class ServerFacts:
    """What a handler tells its client about this server."""

    info: JsonObject
    """``serverInfo``: name and version."""
    instructions: str
    """The instructions a client shows its model (each revision has its own)."""
    page_size: int = DEFAULT_PAGE_SIZE
    """Tools per tools/list page."""


class RevisionHandler(Protocol):
    """One stdio process speaking one dated MCP revision."""

    def receive_request(self, request: Request) -> Reply:
        """Answer (or start answering) one request; ``Reply.accepted`` may pin the revision."""

    def receive_notification(self, note: Notification) -> list[Action]:
        """Take a notification (cancellation, initialized); nothing is ever answered."""

    def receive_bridge(self, message: Message) -> list[Action]:
        """Take a message from the service."""

    def bridge_connected(self) -> list[Action]:
        """The bridge is up: send what waited for it."""

    def bridge_failed(self, reason: str) -> list[Action]:
        """A connection attempt failed (``reason`` says why): retry, or end what waited."""

    def bridge_lost(self) -> list[Action]:
        """The bridge went away: every call sent on it ends, outcome unknown."""

    def awaiting_service(self) -> bool:
        """Whether something sent to the service still waits for its answer."""

    def owed(self) -> int:
        """How many requests already read still wait for their answer."""

    def input_ended(self) -> list[Action]:
        """stdin ended: what can end at once does; requests already read are still answered."""

    def give_up(self, reason: str) -> list[Action]:
        """Stop waiting for the service: every request still owed an answer gets an error."""

    def close(self) -> list[Action]:
        """Clean shutdown: end open streams, release what the process holds at the service."""
