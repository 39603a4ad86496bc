"""The kill switch reaches the browser: on panic the shore sends ``stop`` to every attached
browser, a ``stopped`` reply settles the call at once and truthfully, and hold sends nothing."""

from __future__ import annotations

from typing import Any

import trio
import trio.testing

from ghostlight_trio.audit.records import read_lines
from ghostlight_trio.browser import wire
from ghostlight_trio.browser.errors import BrowserStopped
from ghostlight_trio.browser.shore import BrowserShore
from ghostlight_trio.governance import texts
from ghostlight_trio.governance.sources import PolicyFiles
from ghostlight_trio.service.app import ServiceParts, assemble
from ghostlight_trio.tools.registry import ToolDeps, tool_handlers
from ghostlight_trio.transport.endpoints import Endpoints
from ghostlight_trio.workspace.registry import WorkspaceRegistry
from ghostlight_trio.workspace.tab_ids import compose_tab_id as compose

from .fake_extension import FakeExtension
from .session_driver import SessionDriver, text

WITH_STOP = ("chunkingV1", "tabGroupsV1", "stopV1")
TAB = compose(1, 5)
STOP = {"type": "stop", "reason": wire.KILL_SWITCH_REASON}


def stopped_reply(
    request: dict[str, Any], reason: str = wire.KILL_SWITCH_REASON
) -> dict[str, Any]:
    """What the extension answers for a request it was running when the stop came."""
    error = {
        "message": f"Stopped before it finished ({reason}); what it had already started may or"
        " may not have taken effect",
        "hop": "extension",
        "code": "stopped",
    }
    return {"type": "error", "id": request["id"], "error": error}


def assembled(
    endpoints: Endpoints, registry: WorkspaceRegistry, shore: BrowserShore
) -> ServiceParts:
    every = tool_handlers(ToolDeps(shore, registry))
    handlers = {name: every[name] for name in ("tabs_context_mcp", "tabs_create_mcp", "navigate")}
    return assemble(
        endpoints, registry, handlers, shore, policy=PolicyFiles(org=None, user=None, settings=None)
    )


async def test_panic_sends_stop_to_every_attached_browser_and_hold_sends_nothing(
    shore: BrowserShore, endpoints: Endpoints, registry: WorkspaceRegistry
) -> None:
    parts = assembled(endpoints, registry, shore)
    governor = parts.governance.governor  # type: ignore[union-attr]
    a, _ = await FakeExtension.attach(endpoints.browser_socket, "browser-a", features=WITH_STOP)
    b, _ = await FakeExtension.attach(endpoints.browser_socket, "browser-b", features=WITH_STOP)
    old, _ = await FakeExtension.attach(endpoints.browser_socket, "browser-old")

    governor.control("hold")
    await trio.testing.wait_all_tasks_blocked()

    async def ping(slot: int) -> dict[str, Any]:
        return await shore.request(None, "ping", {}, timeout=2, slot=slot)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(ping, 1)
        # Hold lets running work finish: the next frame browser a sees is the request itself.
        request = await a.receive()
        assert request["type"] == "request" and request["op"] == "ping"
        await a.reply(request, {})
    governor.control("resume")

    ok, message = governor.control("panic")
    assert ok and "Kill switch" in message
    with trio.fail_after(2):
        assert [await peer.receive() for peer in (a, b, old)] == [STOP, STOP, STOP]
    for peer in (a, b, old):
        await peer.aclose()


async def test_a_stopped_reply_settles_the_request_as_stopped_with_its_proof(
    shore: BrowserShore, endpoints: Endpoints
) -> None:
    peer, _ = await FakeExtension.attach(endpoints.browser_socket, features=WITH_STOP)
    failures: list[BrowserStopped] = []

    async def navigate() -> None:
        try:
            await shore.request(
                None, "navigate", {"tabId": TAB, "url": "http://x.test/"}, timeout=60
            )
        except BrowserStopped as stopped:
            failures.append(stopped)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(navigate)
        request = await peer.receive()
        assert shore.stop_all() == 1
        # The stop follows the request on the link, so the extension has it to answer.
        assert await peer.receive() == STOP
        await peer.send(stopped_reply(request))
    [stopped] = failures
    assert stopped.proof == f"browser:1:{request['id']}"
    assert "may or may not have taken effect" in stopped.message
    await peer.aclose()


async def test_panic_answers_a_call_blocked_in_the_browser_at_once_and_truthfully(
    shore: BrowserShore, endpoints: Endpoints, registry: WorkspaceRegistry, nursery: trio.Nursery
) -> None:
    parts = assembled(endpoints, registry, shore)
    governor = parts.governance.governor  # type: ignore[union-attr]
    agent = SessionDriver(parts.engine, nursery)
    ws, _ = registry.open(None, "agent")
    assert registry.adopt_tabs(ws, [TAB])
    peer, _ = await FakeExtension.attach(endpoints.browser_socket, features=WITH_STOP)

    blocked = agent.start("navigate", {"url": "http://127.0.0.1:9/never-loads", "tabId": TAB}, ws)
    request = await peer.receive()
    assert request["op"] == "navigate"  # dispatched: the browser is waiting for the load
    governor.control("panic")
    assert await peer.receive() == STOP
    await peer.send(stopped_reply(request))

    out = await agent.outcome(blocked)
    # Dispatched and stopped: owned up to as maybe-happened, never as success or as not run.
    assert out.kind == "cancelled"
    assert text(out) == texts.PANICKED_AFTER_DISPATCH
    assert "kill switch" in text(out) and "may or may not" in text(out)

    refused = await agent.call("navigate", {"url": "http://x.test/", "tabId": TAB}, ws)
    assert (refused.kind, text(refused)) == ("held", texts.PANICKED)

    governor.control("resume")
    again = agent.start("navigate", {"url": "http://127.0.0.1:9/fine", "tabId": TAB}, ws)
    request = await peer.receive()
    assert request["args"]["url"] == "http://127.0.0.1:9/fine"  # the tab is not quarantined
    await peer.reply(request, {"url": "http://127.0.0.1:9/fine", "title": "Fine", "loaded": True})
    assert (await agent.outcome(again)).kind == "ok"

    with trio.fail_after(5):
        while parts.engine.active_work:  # noqa: ASYNC110 - the engine's count
            await trio.sleep(0.01)
    calls = [r for r in read_lines(endpoints.audit_file) if "event" not in r]
    stopped = calls[0]
    # The agent heard of the kill switch; the trail also keeps what the handler knew: the
    # browser stopped the navigation, whether it had taken effect unknown.
    assert (stopped["outcome"], stopped["reported"]) == ("outcome_unknown", "cancelled")
    assert (stopped["rule"], stopped["effects"]) == ("panic", 1)
    await peer.aclose()
