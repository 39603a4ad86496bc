"""The admitted streams that are alive right now: counted for idle shutdown and status, told
of catalog changes."""

from __future__ import annotations

from ..transport.bridge import Message
from .outbox import Outbox


class LiveStreams:
    def __init__(self) -> None:
        self._roles: dict[Outbox, str] = {}

    def add(self, outbox: Outbox, role: str) -> None:
        self._roles[outbox] = role

    def discard(self, outbox: Outbox) -> None:
        self._roles.pop(outbox, None)

    def __len__(self) -> int:
        return len(self._roles)

    def role_of(self, outbox: Outbox) -> str | None:
        return self._roles.get(outbox)

    def count(self, role: str) -> int:
        return sum(1 for held in self._roles.values() if held == role)

    def broadcast(self, message: Message) -> None:
        for outbox in list(self._roles):
            outbox.post(message)
