"""The slot table: which browser profile holds which slot, which run of it is live, and focus.

A profile (its ``browserId``) keeps its slot for the service's lifetime, so composite tab ids
stay valid across reconnects; a new ``generation`` under the same slot means the browser
restarted and every tab it had is gone. Pure state: the shore does the linking and the I/O.
"""

from __future__ import annotations

from collections.abc import Iterator

import trio

from .admission import ExtensionHello
from .connection import BrowserConnection


class SlotTable:
    """Slots by browser profile, the live link of each slot, and the order of focus."""

    def __init__(self) -> None:
        self._slots: dict[str, int] = {}
        self._generations: dict[int, str] = {}
        self._live: dict[int, BrowserConnection] = {}
        self._focus: list[int] = []
        self._changed = trio.Event()

    def admit(self, hello: ExtensionHello) -> tuple[int, bool]:
        """The slot of the browser saying ``hello`` and whether it restarted since its last
        link (a new generation under a slot it held before)."""
        slot = self._slots.setdefault(hello.browser_id, len(self._slots) + 1)
        previous = self._generations.get(slot)
        self._generations[slot] = hello.generation
        return slot, previous is not None and previous != hello.generation

    def take(self, slot: int) -> BrowserConnection | None:
        """Unlist the live link of ``slot`` (one that a newer link replaces)."""
        return self._live.pop(slot, None)

    def publish(self, connection: BrowserConnection) -> None:
        """List ``connection`` as its slot's live link, the most recently focused."""
        self._live[connection.slot] = connection
        self.touch_focus(connection.slot)
        self._notify()

    def unlist(self, connection: BrowserConnection) -> bool:
        """Unlist ``connection`` if it is still its slot's live link; True when it was."""
        if self._live.get(connection.slot) is not connection:
            return False
        del self._live[connection.slot]
        self._notify()
        return True

    def touch_focus(self, slot: int) -> None:
        if slot in self._focus:
            self._focus.remove(slot)
        self._focus.append(slot)

    def live(self, slot: int) -> BrowserConnection | None:
        return self._live.get(slot)

    def connections(self) -> list[BrowserConnection]:
        return list(self._live.values())

    def by_focus(self) -> Iterator[BrowserConnection]:
        """Live links, the most recently focused browser first."""
        for slot in reversed(self._focus):
            if slot in self._live:
                yield self._live[slot]

    def known(self, slot: int) -> bool:
        """A browser held ``slot`` at some point in this service's lifetime."""
        return slot in self._generations

    def slot_of_browser(self, browser_id: str) -> int | None:
        return self._slots.get(browser_id)

    def __len__(self) -> int:
        return len(self._live)

    async def changed(self) -> None:
        """Return at the next link listed or unlisted."""
        await self._changed.wait()

    def _notify(self) -> None:
        self._changed.set()
        self._changed = trio.Event()
