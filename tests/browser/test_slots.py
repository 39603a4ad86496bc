"""The slot table and the tab groups as plain state: no socket, no browser."""

from __future__ import annotations

from typing import Any

from ghostlight_trio.browser.admission import ExtensionHello
from ghostlight_trio.browser.connection import BrowserConnection
from ghostlight_trio.browser.slots import SlotTable
from ghostlight_trio.browser.tab_groups import TabGroups
from ghostlight_trio.workspace.registry import Presentation


def hello(browser_id: str, generation: str = "g1") -> ExtensionHello:
    return ExtensionHello(browser_id, generation, frozenset(), "0.1.0", None)


def link(slot: int, browser_id: str = "b") -> BrowserConnection:
    return BrowserConnection(slot=slot, hello=hello(browser_id), stream=None, features=frozenset())  # type: ignore[arg-type]


def test_a_profile_keeps_its_slot_and_a_new_generation_is_a_restart() -> None:
    table = SlotTable()
    assert table.admit(hello("a")) == (1, False)
    assert table.admit(hello("b")) == (2, False)
    assert table.admit(hello("a")) == (1, False)  # a reconnect of the same run
    assert table.admit(hello("a", "g2")) == (1, True)
    assert table.slot_of_browser("b") == 2 and table.slot_of_browser("c") is None
    assert table.known(2) and not table.known(3)


async def test_focus_orders_live_links_and_only_the_live_link_unlists() -> None:
    table = SlotTable()
    one, two = link(1), link(2)
    table.publish(one)
    table.publish(two)
    assert list(table.by_focus()) == [two, one]
    table.touch_focus(1)
    assert list(table.by_focus()) == [one, two]
    assert not table.unlist(link(1))  # a stale link of slot 1 is not the live one
    assert table.unlist(one) and len(table) == 1
    assert table.take(2) is two and table.live(2) is None


class Registry:
    def presentation(self, ws: Any) -> Presentation:
        if ws == "gone":
            raise LookupError(ws)
        return Presentation(label=ws, ordinal=2 if ws == "twin" else 1, hue=9)

    def browser_key(self, ws: Any) -> str:
        return f"key-{ws}"


def test_group_titles_colours_and_ended_workspaces() -> None:
    groups = TabGroups(Registry())  # type: ignore[arg-type]
    assert groups.presentation("cc") == {"groupTitle": "Ghostlight · cc", "groupColor": "red"}
    assert groups.presentation("twin")["groupTitle"] == "Ghostlight · twin 2"
    assert groups.presentation("gone") == {"groupTitle": "Ghostlight"}
    assert groups.ended("cc") is None  # never sent to a browser: nothing to tell
    groups.sent("cc")
    groups.sent("twin")
    assert groups.recently_sent() == ["twin", "cc"]
    assert groups.ended("cc") == ("key-cc", "Ghostlight · cc (ended)")
    assert groups.recently_sent() == ["twin"]
    assert groups.all_ended() == [("key-cc", "Ghostlight · cc (ended)")]
