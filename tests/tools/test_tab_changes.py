"""The tab journal and the answer note: tabs opened from the call's tab and the workspace's
tabs closed while it ran, only those, bounded."""

from __future__ import annotations

import trio

from ghostlight_trio.browser.tab_journal import DELTA_LIMIT, TabJournal
from ghostlight_trio.engine.contracts import ToolCall, ToolResult, WorkContext
from ghostlight_trio.tools.shared.tab_changes import noting_tab_changes


class _Owners:
    def __init__(self, owned: set[int]) -> None:
        self.owned = owned

    def verify_tab(self, workspace: str | None, tab: int) -> bool:
        return workspace == "ws" and tab in self.owned


def _call(tab: int | None = 1, workspace: str | None = "ws") -> ToolCall:
    arguments = {} if tab is None else {"tabId": tab}
    context = WorkContext(work_id="w1", operation="computer", workspace_id=workspace, client_label="t")
    return ToolCall(context=context, arguments=arguments, effects=None)  # type: ignore[arg-type]


def test_the_journal_names_what_happened_after_the_cursor_for_that_tab_and_workspace() -> None:
    journal = TabJournal()
    journal.opened("ws", 9, source=1, active=False)  # before the call
    cursor = journal.cursor()
    journal.opened("ws", 10, source=1, active=True)
    journal.opened("ws", 11, source=2, active=False)  # another tab's child
    journal.opened("other", 12, source=1, active=False)  # another workspace's
    journal.closed("ws", 5)
    journal.closed("other", 6)
    delta = journal.since(cursor, "ws", 1)
    assert delta is not None
    assert delta.structured() == {"opened": [{"tabId": 10, "active": True}], "closed": [5], "more": False, "activeTabId": 10}
    assert journal.since(journal.cursor(), "ws", 1) is None
    for tab in range(100, 100 + DELTA_LIMIT + 1):
        journal.opened("ws", tab, source=1, active=False)
    many = journal.since(cursor, "ws", 1)
    assert many is not None and len(many.opened) == DELTA_LIMIT and many.more


async def test_an_answer_names_the_tabs_opened_during_its_call_that_are_still_the_workspace_s() -> None:
    journal = TabJournal()

    async def clicks(call: ToolCall) -> ToolResult:
        await trio.lowlevel.checkpoint()
        journal.opened("ws", 10, source=1, active=True)
        journal.opened("ws", 11, source=1, active=False)  # the user took this one away since
        return ToolResult.text("clicked", structured={"x": 1})

    handlers = noting_tab_changes({"computer": clicks}, journal, _Owners({1, 10}))
    result = await handlers["computer"](_call())
    assert result.structured == {"x": 1, "tabDelta": {"opened": [{"tabId": 10, "active": True}], "closed": [], "more": False, "activeTabId": 10}}
    note = result.content[-1].text  # type: ignore[union-attr]
    assert "Tab 10 opened from this tab during the call" in note and "pass tabId 10" in note
    assert "11" not in note

    async def closes(call: ToolCall) -> ToolResult:
        await trio.lowlevel.checkpoint()
        journal.closed("ws", 5)
        return ToolResult.text("done", structured={"x": 1})

    # A call that names no tab is told nothing, though its workspace's tab 5 closed meanwhile.
    quiet = await noting_tab_changes({"computer": closes}, journal, _Owners({1}))["computer"](_call(tab=None))
    assert quiet.structured == {"x": 1} and len(quiet.content) == 1
    told = await noting_tab_changes({"computer": closes}, journal, _Owners({1}))["computer"](_call())
    assert told.structured["tabDelta"]["closed"] == [5]
