"""Where steps come from: a wrapped call costs nothing while its workspace does not record;
while it records, the target is described before the action (the ref still resolves then), a
successful call leaves one step with what the page showed after it, a page that cannot be
described costs the step its names (and what was typed), never the call, and a page the policy
closes to the workspace is not read at all. The tool itself only answers from what it holds."""

from __future__ import annotations

from typing import Any

from ghostlight_trio.browser.errors import BrowserError
from ghostlight_trio.engine.contracts import ToolCall, ToolResult, WorkContext, WorkspaceId
from ghostlight_trio.tools.record_actions.book import ActionBook
from ghostlight_trio.tools.record_actions.hook import StepTaker
from ghostlight_trio.tools.record_actions.tool import RecordActions
from ghostlight_trio.tools.shared.channel import PageChannel
from ghostlight_trio.tools.shared.screenshots import ContextBook

from .fakes import ScriptedBrowser, tool_call

BUTTON = {"role": "button", "name": "Place order", "text": "Place order", "css": "#go", "tag": "button"}
PAGE = {"url": "http://127.0.0.1/done", "title": "Done", "shown": {"role": "heading", "text": "Thanks"}}


def _page(describe: bool = True) -> tuple[ScriptedBrowser, list[str]]:
    order: list[str] = []

    def answer(op: str, args: dict[str, Any]) -> dict[str, Any]:
        asked = args.get("args", {})
        order.append(f"{args.get('fn')} {sorted(asked)}")
        if not describe:
            raise BrowserError("the page is gone", code="no_receiver")
        if asked.get("page"):
            return {"value": {"page": PAGE}}
        return {"value": {"element": BUTTON}}

    return ScriptedBrowser(answer), order


def _taker(browser: ScriptedBrowser, book: ActionBook, **kwargs: Any) -> StepTaker:
    return StepTaker(book, PageChannel(browser), ContextBook(), **kwargs)


def _handler(order: list[str], kind: str = "ok") -> Any:
    async def handle(call: ToolCall) -> ToolResult:
        order.append(f"act {call.context.operation}")
        return ToolResult.text("done", kind=kind)  # type: ignore[arg-type]

    return handle


async def test_nothing_is_asked_while_nothing_records() -> None:
    browser, order = _page()
    wrapped = _taker(browser, ActionBook()).wrap({"computer": _handler(order), "find": _handler(order)})
    result = await wrapped["computer"](tool_call("computer", action="left_click", ref="ref_1"))
    assert result.kind == "ok" and order == ["act computer"] and browser.seen == []


async def test_the_target_is_described_before_the_action_and_the_page_after() -> None:
    browser, order = _page()
    book = ActionBook()
    book.start(WorkspaceId("ws"))
    wrapped = _taker(browser, book).wrap({"computer": _handler(order), "find": _handler(order)})
    await wrapped["computer"](tool_call("computer", action="left_click", ref="ref_1"))
    await wrapped["find"](tool_call("find", query="x"))  # a read: no step, nothing asked
    assert order == ["locator ['ref']", "act computer", "locator ['page']", "act find"]
    recording = book.get(WorkspaceId("ws"))
    assert recording is not None
    [step] = recording.steps
    assert step.kind == "click" and step.locator is not None and step.locator.name == "Place order"
    assert step.after is not None and (step.after.title, step.after.text) == ("Done", "Thanks")


async def test_a_page_that_cannot_say_costs_the_names_never_the_call() -> None:
    browser, order = _page(describe=False)
    book = ActionBook()
    book.start(WorkspaceId("ws"))
    wrapped = _taker(browser, book).wrap({"computer": _handler(order)})
    typed = await wrapped["computer"](tool_call("computer", action="type", text="hunter2"))
    assert typed.kind == "ok"
    recording = book.get(WorkspaceId("ws"))
    assert recording is not None
    [step] = recording.steps
    assert (step.kind, step.value, step.secret, step.locator, step.after) == ("fill", "", "SECRET", None, None)


async def test_a_page_closed_to_the_workspace_is_not_read() -> None:
    browser, order = _page()
    book = ActionBook()
    book.start(WorkspaceId("ws"))

    async def never(workspace: str | None, tab: int) -> bool:
        return False

    wrapped = _taker(browser, book, may_see=never).wrap({"form_input": _handler(order)})
    await wrapped["form_input"](tool_call("form_input", ref="ref_2", value="Ada"))
    assert browser.seen == []
    recording = book.get(WorkspaceId("ws"))
    assert recording is not None and recording.steps[0].secret == "SECRET"


async def test_failed_calls_and_other_workspaces_leave_no_step() -> None:
    browser, order = _page()
    book = ActionBook()
    book.start(WorkspaceId("other"))
    book.start(WorkspaceId("ws"))
    failing = _taker(browser, book).wrap({"computer": _handler(order, "tool_error")})
    await failing["computer"](tool_call("computer", action="left_click", ref="ref_1"))
    recording = book.get(WorkspaceId("ws"))
    assert recording is not None and recording.steps == []
    other = book.get(WorkspaceId("other"))
    assert other is not None and other.steps == []


def _own(action: str, **more: Any) -> ToolCall:
    context = WorkContext("w1", "record_actions", WorkspaceId("ws"))
    return ToolCall(context=context, arguments={"action": action, **more}, effects=None)  # type: ignore[arg-type]


async def test_the_tool_answers_from_what_it_holds() -> None:
    browser, order = _page()
    book = ActionBook()
    tool = RecordActions(book)
    assert (await tool(_own("status"))).kind == "tool_error"
    started = await tool(_own("start"))
    assert started.structured is not None and started.structured["state"] == "recording"
    assert (await tool(_own("export"))).kind == "tool_error"  # no steps yet
    wrapped = _taker(browser, book).wrap({"computer": _handler(order)})
    await wrapped["computer"](tool_call("computer", action="left_click", ref="ref_1"))
    stopped = await tool(_own("stop"))
    assert stopped.structured is not None and stopped.structured["step_count"] == 1
    await wrapped["computer"](tool_call("computer", action="left_click", ref="ref_1"))  # not kept
    script = await tool(_own("export"))
    assert script.structured is not None
    assert script.structured["steps"] == [
        {"tool": "act_on", "args": {"target": {"name": "Place order", "role": "button"}, "action": "left_click"}}
    ]
    test = await tool(_own("export", format="playwright"))
    assert test.structured is not None and "getByRole(\"button\"" in test.structured["file"]
    assert "GHOSTLIGHT PAGE CONTENT" in "".join(getattr(b, "text", "") for b in test.content)
    cleared = await tool(_own("clear"))
    assert cleared.structured == {"cleared": True} and book.get(WorkspaceId("ws")) is None


async def test_a_read_of_a_recorded_tool_asks_nothing_more() -> None:
    browser, order = _page()
    book = ActionBook()
    book.start(WorkspaceId("ws"))
    wrapped = _taker(browser, book).wrap({"computer": _handler(order)})
    await wrapped["computer"](tool_call("computer", action="hover", ref="ref_1"))
    await wrapped["computer"](tool_call("computer", action="screenshot"))
    assert order == ["act computer", "act computer"] and browser.seen == []
