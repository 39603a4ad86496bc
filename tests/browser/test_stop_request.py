"""A caller's cancel reaches the browser for requests whose rest is only a wait: the shore asks
the extension to stop that one request (``stop_request``), so a cancelled navigation frees its
tab at once instead of holding it for the whole load; an older extension drains as before."""

from __future__ import annotations

from typing import Any

import trio

from ghostlight_trio.audit.records import read_lines
from ghostlight_trio.browser import wire
from ghostlight_trio.browser.shore import BrowserShore
from ghostlight_trio.transport.endpoints import Endpoints
from ghostlight_trio.workspace.registry import WorkspaceRegistry
from ghostlight_trio.workspace.tab_ids import compose_tab_id as compose

from .fake_extension import FakeExtension
from .session_driver import SessionDriver
from .test_stop import WITH_STOP, assembled, stopped_reply

WITH_STOP_REQUEST = (*WITH_STOP, wire.FEATURE_STOP_REQUEST)
TAB = compose(1, 5)


async def _agent_on_tab(
    shore: BrowserShore,
    endpoints: Endpoints,
    registry: WorkspaceRegistry,
    nursery: trio.Nursery,
    features: tuple[str, ...],
) -> tuple[Any, SessionDriver, Any, FakeExtension]:
    """The assembled service, an agent session, its workspace owning ``TAB``, and an attached
    extension with ``features``."""
    parts = assembled(endpoints, registry, shore)
    agent = SessionDriver(parts.engine, nursery)
    ws, _ = registry.open(None, "agent")
    assert registry.adopt_tabs(ws, [TAB])
    peer, _ = await FakeExtension.attach(endpoints.browser_socket, features=features)
    return parts, agent, ws, peer


async def test_a_cancelled_navigation_stops_its_load_wait_and_frees_the_tab_at_once(
    shore: BrowserShore, endpoints: Endpoints, registry: WorkspaceRegistry, nursery: trio.Nursery
) -> None:
    parts, agent, ws, peer = await _agent_on_tab(
        shore, endpoints, registry, nursery, WITH_STOP_REQUEST
    )

    slow = agent.start("navigate", {"url": "http://127.0.0.1:9/slow", "tabId": TAB}, ws)
    request = await peer.receive()
    assert request["op"] == "navigate"  # sent: the browser waits for the page
    agent.session.cancel(slow)
    assert await peer.receive() == {
        "type": "stop_request", "id": request["id"], "reason": wire.CALLER_CANCELLED_REASON,
    }  # fmt: skip
    await peer.send(stopped_reply(request, wire.CALLER_CANCELLED_REASON))

    # The tab is free now, not quarantined and not held by a drain.
    after = agent.start("navigate", {"url": "http://127.0.0.1:9/next", "tabId": TAB}, ws)
    request = await peer.receive()
    assert (request["op"], request["args"]["url"]) == ("navigate", "http://127.0.0.1:9/next")
    await peer.reply(request, {"url": "http://127.0.0.1:9/next", "title": "Next", "loaded": True})
    assert (await agent.outcome(after)).kind == "ok"
    assert (await agent.outcome(slow)).kind == "cancelled"  # the edge drops it: its caller left

    with trio.fail_after(5):
        while parts.engine.active_work:  # noqa: ASYNC110 - the engine's count
            await trio.sleep(0.01)
    records = [r for r in read_lines(endpoints.audit_file) if "outcome" in r]
    first = records[0]
    # Recorded as what it was: sent, then cancelled by its caller, who was told nothing.
    assert (first["outcome"], first["reported"], first["effects"]) == ("cancelled", None, 1)
    await peer.aclose()


async def test_an_extension_without_the_feature_gets_no_stop_request_and_the_call_drains(
    shore: BrowserShore, endpoints: Endpoints, registry: WorkspaceRegistry, nursery: trio.Nursery
) -> None:
    _, agent, ws, peer = await _agent_on_tab(shore, endpoints, registry, nursery, WITH_STOP)

    slow = agent.start("navigate", {"url": "http://127.0.0.1:9/slow", "tabId": TAB}, ws)
    request = await peer.receive()
    agent.session.cancel(slow)
    await trio.sleep(0.2)
    await peer.reply(request, {"url": "http://127.0.0.1:9/slow", "title": "Slow", "loaded": True})
    after = agent.start("navigate", {"url": "http://127.0.0.1:9/next", "tabId": TAB}, ws)
    following = await peer.receive()  # the next request, with no stop_request before it
    assert (following["type"], following["args"]["url"]) == ("request", "http://127.0.0.1:9/next")
    await peer.reply(following, {"url": "http://127.0.0.1:9/next", "title": "Next", "loaded": True})
    assert (await agent.outcome(after)).kind == "ok"
    await peer.aclose()


async def test_a_request_answered_before_any_cancel_sends_no_stop_request(
    shore: BrowserShore, endpoints: Endpoints
) -> None:
    peer, _ = await FakeExtension.attach(endpoints.browser_socket, features=WITH_STOP_REQUEST)
    stop = trio.Event()
    async with trio.open_nursery() as nursery:

        async def navigate() -> None:
            await shore.request(
                None, "navigate", {"tabId": TAB, "url": "http://x.test/"}, timeout=5, stop=stop
            )

        nursery.start_soon(navigate)
        request = await peer.receive()
        await peer.reply(request, {"url": "http://x.test/", "title": "", "loaded": True})
    stop.set()  # too late to matter: nothing is waiting any more
    assert shore.stop_all() == 1
    assert await peer.receive() == {"type": "stop", "reason": wire.KILL_SWITCH_REASON}
    await peer.aclose()


async def test_the_kill_switch_sends_no_stop_request_its_own_stop_answers(
    shore: BrowserShore, endpoints: Endpoints, registry: WorkspaceRegistry, nursery: trio.Nursery
) -> None:
    """A call the kill switch cancels is not its caller's cancel: the browser gets the one
    ``stop`` for everything, and the trail keeps what the handler knew (outcome unknown)."""
    parts, agent, ws, peer = await _agent_on_tab(
        shore, endpoints, registry, nursery, WITH_STOP_REQUEST
    )
    governor = parts.governance.governor
    slow = agent.start("navigate", {"url": "http://127.0.0.1:9/slow", "tabId": TAB}, ws)
    request = await peer.receive()
    governor.control("panic")
    assert await peer.receive() == {"type": "stop", "reason": wire.KILL_SWITCH_REASON}
    await peer.send(stopped_reply(request))
    assert (await agent.outcome(slow)).kind == "cancelled"
    governor.control("resume")
    with trio.fail_after(5):
        while parts.engine.active_work:  # noqa: ASYNC110 - the engine's count
            await trio.sleep(0.01)
    [record] = [r for r in read_lines(endpoints.audit_file) if "outcome" in r]
    assert (record["outcome"], record["reported"]) == ("outcome_unknown", "cancelled")
    await peer.aclose()
