"""The handlers' view of the bridge connection: up, connecting or down, plus held messages.

Messages asked for while the link is not up wait here; the first one asks the runtime to
connect. A failed attempt drops them (their callers answer "not sent").
"""

from __future__ import annotations

from typing import Literal

from ghostlight_trio.transport.bridge import Message

from .actions import Action, ConnectBridge, SendBridge

LinkState = Literal["down", "connecting", "up"]


class Link:
    def __init__(self) -> None:
        self.state: LinkState = "down"
        self._held: list[Message] = []
        self.ever_up = False

    @property
    def is_up(self) -> bool:
        return self.state == "up"

    def send(self, message: Message) -> list[Action]:
        if self.state == "up":
            return [SendBridge(message)]
        self._held.append(message)
        return self.request_connection()

    def request_connection(self) -> list[Action]:
        if self.state == "down":
            self.state = "connecting"
            return [ConnectBridge()]
        return []

    def connected(self) -> list[Message]:
        """The runtime connected: return the held messages, which it should now send."""
        self.state = "up"
        self.ever_up = True
        held, self._held = self._held, []
        return held

    def failed(self) -> None:
        self.state = "down"
        self._held.clear()

    def lost(self) -> None:
        self.state = "down"
        self._held.clear()
