"""JavaScript dialogs through the real shore, engine and scheduler, with a scripted extension.

The extension answers a request that a dialog interrupted at once with ``dialog`` and refuses
page requests while one is open with ``dialog_open``; here the service side is shown to turn
both into truthful results that name the ``dialog`` tool, to send nothing more to a paused page,
and to leave the tab usable (never quarantined).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import attrs
import pytest
import trio

from ghostlight_trio.browser import wire
from ghostlight_trio.browser.errors import BrowserError
from ghostlight_trio.browser.shore import BrowserShore
from ghostlight_trio.catalog.registry import Catalog, load_specs
from ghostlight_trio.engine.engine import WorkEngine
from ghostlight_trio.scheduler import Scheduler, TabSurface
from ghostlight_trio.tools.registry import ToolDeps, tool_handlers
from ghostlight_trio.transport.endpoints import Endpoints
from ghostlight_trio.workspace.registry import WorkspaceRegistry
from ghostlight_trio.workspace.tab_ids import compose_tab_id as compose

from .fake_extension import FakeExtension
from .session_driver import SessionDriver, text

FEATURES = ("chunkingV1", "tabGroupsV1", "stopV1", "dialogsV1")
TAB = compose(1, 5)
ALERT = {"type": "alert", "message": "hi", "defaultPrompt": "", "url": "http://a.test/p"}
ELEMENT = {
    "ref": "ref_1",
    "role": "button",
    "name": "Say hi",
    "tag": "button",
    "x": 40,
    "y": 20,
    "box": {"x": 0, "y": 0, "width": 80, "height": 40},
    "visible": True,
    "inViewport": True,
    "enabled": True,
    "renderSerial": 1,
}
OBSERVED = {"url": "http://a.test/p", "title": "P", "renderSerial": 1, "mutations": 3}

Reply = Callable[[dict[str, Any]], dict[str, Any]]


def result(value: dict[str, Any]) -> Reply:
    return lambda request: {"type": "response", "id": request["id"], "result": value}


def refused(dialog: dict[str, Any]) -> Reply:
    error = {
        "message": f"A JavaScript {dialog['type']} dialog is open in tab 5, so its page is"
        " paused until the dialog is answered; nothing was sent",
        "hop": "page",
        "code": "dialog_open",
        "dialog": dialog,
    }
    return lambda request: {"type": "error", "id": request["id"], "error": error}


@attrs.define
class Browser:
    """A scripted extension: answers each request by its op and CDP method / content fn."""

    peer: FakeExtension
    script: dict[str, Reply]
    seen: list[str] = attrs.Factory(list)

    async def serve(self) -> None:
        while True:
            request = await self.peer.receive()
            args = request.get("args", {})
            key = request["op"]
            if key == "cdp_sequence":
                await self.peer.send(self._sequence(request, args["commands"]))
                continue
            if key == "cdp":
                key = _cdp_key(args)
            elif key == "content":
                key = f"content {args['fn']}"
            self.seen.append(key)
            await self.peer.send(self.script[key](request))

    def _sequence(self, request: dict[str, Any], commands: list[dict[str, Any]]) -> dict[str, Any]:
        """As the extension runs ``cdp_sequence``: command by command, each answered as its own
        ``cdp`` request would be, stopping at a dialog or a failure and counting what was done."""
        for completed, command in enumerate(commands):
            key = _cdp_key(command)
            self.seen.append(key)
            reply = self.script[key](request)
            if reply["type"] == "error":
                return {**reply, "error": {**reply["error"], "completed": completed}}
            if "dialog" in reply["result"]:
                dialog = reply["result"]["dialog"]
                result = {"dialog": dialog, "completed": completed, "delivered": True}
                return {**reply, "result": result}
        return {"type": "response", "id": request["id"], "result": {"completed": len(commands)}}


def _cdp_key(command: dict[str, Any]) -> str:
    return f"cdp {command['method']} {command['params'].get('type', '')}".strip()


SERVED = (
    "tabs_context_mcp", "tabs_create_mcp", "navigate", "computer", "find", "form_input",
    "get_page_text", "javascript_tool", "read_console_messages", "read_network_requests",
    "read_page", "resize_window", "tab_control", "wait_for", "dialog",
)  # fmt: skip
"""The context tools, the page tools, tab_control, wait_for and dialog."""


@pytest.fixture
async def setup(
    endpoints: Endpoints, registry: WorkspaceRegistry, nursery: trio.Nursery
) -> tuple[SessionDriver, Scheduler, FakeExtension, str]:
    scheduler = Scheduler()
    shore = BrowserShore(endpoints, registry, first_call_wait=2, scheduler=scheduler)
    await nursery.start(shore.serve)
    every = tool_handlers(ToolDeps(shore, registry))
    handlers = {name: every[name] for name in SERVED}
    engine = WorkEngine(
        catalog=Catalog(load_specs(), handlers),
        handlers=handlers,
        workspaces=registry,
        scheduler=scheduler,
    )
    ws, _ = registry.open(None, "agent")
    assert registry.adopt_tabs(ws, [TAB])
    peer, welcome = await FakeExtension.attach(endpoints.browser_socket, features=FEATURES)
    assert wire.FEATURE_DIALOGS in welcome["features"]
    return SessionDriver(engine, nursery, hang_guard=5), scheduler, peer, ws


async def test_a_click_answered_by_a_dialog_reports_it_and_leaves_the_tab_usable(
    setup: tuple[SessionDriver, Scheduler, FakeExtension, str], nursery: trio.Nursery
) -> None:
    agent, scheduler, peer, ws = setup
    browser = Browser(
        peer,
        {
            "content observe": result({"value": {**OBSERVED, "target": ELEMENT}}),
            "content hit_test": result({"value": {"target": ELEMENT, "hit": True, "covering": None}}),
            "cdp Input.dispatchMouseEvent mouseMoved": result({"result": {}}),
            "cdp Input.dispatchMouseEvent mousePressed": result({"result": {}}),
            "cdp Input.dispatchMouseEvent mouseReleased": result({"dialog": ALERT}),
            "dialog": result({"resolved": True, "open": False, "action": "accept", **ALERT}),
            "tab_info": result({"tabId": 5, "url": "http://a.test/p", "title": "P"}),
        },
    )
    nursery.start_soon(browser.serve)

    clicked = await agent.call("computer", {"tabId": TAB, "action": "left_click", "ref": "ref_1"}, ws)
    assert clicked.kind == "ok", text(clicked)
    assert text(clicked).startswith(
        f"left_click at ref_1 (40, 20). The input was delivered and a JavaScript alert dialog"
        f" opened on tab {TAB}; it is still open. Next step: call dialog with tabId {TAB} and"
        " action accept."
    )
    assert "origin=http://a.test UNTRUSTED ---\nhi\n--- END" in text(clicked)
    assert clicked.structured["dialog"] == {"open": True, "type": "alert", "message": "hi"}
    # Nothing more went to the paused page: no observation after the click.
    assert browser.seen == [
        "content observe",
        "content hit_test",  # the click's point reaches the ref's element
        "cdp Input.dispatchMouseEvent mouseMoved",
        "content hit_test",  # and still does with the pointer on it
        "cdp Input.dispatchMouseEvent mousePressed",
        "cdp Input.dispatchMouseEvent mouseReleased",
    ]
    assert not scheduler.is_quarantined(TabSurface(1, 5))

    accepted = await agent.call("dialog", {"tabId": TAB, "action": "accept"}, ws)
    assert accepted.kind == "ok" and accepted.structured["resolved"] is True, text(accepted)
    assert browser.seen[-2:] == ["dialog", "tab_info"]


async def test_a_request_refused_by_an_open_dialog_sends_nothing_more_and_says_why(
    setup: tuple[SessionDriver, Scheduler, FakeExtension, str], nursery: trio.Nursery
) -> None:
    agent, scheduler, peer, ws = setup
    confirm = {**ALERT, "type": "confirm", "message": "Sure?"}
    browser = Browser(
        peer,
        {
            "content observe": refused(confirm),
            "content read_page": refused(confirm),
            "cdp Runtime.evaluate": refused(confirm),
        },
    )
    nursery.start_soon(browser.serve)

    clicked = await agent.call("computer", {"tabId": TAB, "action": "left_click", "ref": "ref_1"}, ws)
    assert clicked.kind == "tool_error"
    assert text(clicked).startswith(
        f"left_click was not done: a JavaScript confirm dialog is open on tab {TAB}; nothing was"
        f" sent. Next step: call dialog with tabId {TAB} and action accept (OK) or dismiss"
        " (Cancel)."
    )
    assert clicked.structured["dialog"]["message"] == "Sure?"
    read = await agent.call("read_page", {"tabId": TAB}, ws)
    assert read.kind == "tool_error" and text(read).startswith("read_page did not run: a")
    script = await agent.call(
        "javascript_tool", {"tabId": TAB, "action": "javascript_exec", "text": "1"}, ws
    )
    assert script.kind == "tool_error" and "javascript_tool did not run" in text(script)
    assert browser.seen == ["content observe", "content read_page", "cdp Runtime.evaluate"]
    assert not scheduler.is_quarantined(TabSurface(1, 5))


async def test_the_dialog_of_a_refusal_reaches_the_browser_error(
    shore: BrowserShore, endpoints: Endpoints
) -> None:
    peer, _ = await FakeExtension.attach(endpoints.browser_socket, features=FEATURES)
    async with trio.open_nursery() as nursery:

        async def answer() -> None:
            request = await peer.receive()
            await peer.send(refused(ALERT)(request))

        nursery.start_soon(answer)
        with pytest.raises(BrowserError) as raised:
            await shore.request(None, "content", {"tabId": TAB, "fn": "ping"}, timeout=2)
    assert raised.value.code == "dialog_open" and raised.value.hop == "page"
    assert raised.value.dialog == ALERT
    assert f"in tab {TAB}," in raised.value.message  # the native id is rewritten as usual
    await peer.aclose()
