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
        self._launching = True
        """Whether the attempt under way may start the service."""

    @property
    def is_up(self) -> bool:
        return self.state == "up"

    def send(self, message: Message) -> list[Action]:
        if self.state == "up":
            return [SendBridge(message)]
        self._held.append(message)
        return self.request_connection()

    def withdraw(self, message: Message) -> None:
        """A held message its sender no longer wants (a call cancelled before it was sent):
        it is never sent."""
        self._held = [held for held in self._held if held is not message]

    def request_connection(self, *, launch: bool = True) -> list[Action]:
        if self.state == "down":
            self.state = "connecting"
            self._launching = launch
            return [ConnectBridge(launch=launch)]
        return []

    def connected(self) -> list[Message]:
        """The runtime connected: return the held messages, which it should now send."""
        self.state = "up"
        held, self._held = self._held, []
        return held

    def failed(self) -> list[Action]:
        """An attempt failed. One that could not start the service is tried again, starting
        it, when messages came to wait meanwhile (a request is a need); otherwise the link is
        down and what waited is dropped (its callers answer "not sent")."""
        if not self._launching and self._held:
            self._launching = True
            return [ConnectBridge(launch=True)]
        self.state = "down"
        self._held.clear()
        return []

    def lost(self) -> None:
        self.state = "down"
        self._held.clear()
