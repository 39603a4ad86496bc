"""The browser shore against a scripted extension peer over the real browser socket."""

from __future__ import annotations

import base64
import hashlib
import os
import stat
from typing import Any

import pytest
import trio

from ghostlight_trio.browser import wire
from ghostlight_trio.browser.errors import (
    BrowserError,
    BrowserRefused,
    BrowserUnavailable,
    OutcomeUnknown,
)
from ghostlight_trio.browser.shore import BrowserShore
from ghostlight_trio.engine.contracts import ToolCall, WorkContext
from ghostlight_trio.scheduler import Scheduler, TabSurface
from ghostlight_trio.tools.shared.atomic import atomic_request
from ghostlight_trio.transport.bridge import Outcome
from ghostlight_trio.transport.bridge_codec import encode_message
from ghostlight_trio.transport.browser_link import MAX_FRAME_TO_CHROME
from ghostlight_trio.transport.endpoints import Endpoints
from ghostlight_trio.workspace.registry import WorkspaceRegistry
from ghostlight_trio.workspace.tab_ids import compose_tab_id as compose

from .fake_extension import FakeExtension, until

SLOT1 = 2**32


async def test_socket_is_owner_only(shore: BrowserShore, endpoints: Endpoints) -> None:
    mode = stat.S_IMODE(os.stat(endpoints.browser_socket).st_mode)
    assert mode == 0o600


async def test_admission_assigns_stable_slots(shore: BrowserShore, endpoints: Endpoints) -> None:
    a, welcome_a = await FakeExtension.attach(endpoints.browser_socket, "browser-a")
    assert welcome_a == {
        "type": "welcome",
        "wire": 1,
        "slot": 1,
        "features": ["chunkingV1", "tabGroupsV1"],
        "serviceVersion": "",
        "liveWorkspaces": [],  # none yet: any group the browser remembers is over
    }
    b, welcome_b = await FakeExtension.attach(
        endpoints.browser_socket, "browser-b", features=("tabGroupsV1", "somethingNew")
    )
    assert (welcome_b["slot"], welcome_b["features"]) == (2, ["tabGroupsV1"])
    assert shore.connected_count == 2
    await a.aclose()
    await until(lambda: shore.connected_count == 1)
    again, welcome = await FakeExtension.attach(endpoints.browser_socket, "browser-a")
    assert welcome["slot"] == 1
    assert shore.connected_count == 2
    await again.aclose()
    await b.aclose()


@pytest.mark.parametrize(
    "frames",
    [
        [{"type": "hello", "wire": 1, "browserId": "x", "generation": "g"}],
        [{"type": "relay_hello", "wire": 1}, {"type": "hello", "wire": 1, "generation": "g"}],
        [{"type": "relay_hello", "wire": 1}, {"type": "hello", "wire": 1, "browserId": "  "}],
        [{"type": "relay_hello", "wire": 1}],
    ],
    ids=["no-relay-hello", "no-browser-id", "blank-browser-id", "no-extension-hello"],
)
async def test_inadmissible_connections_are_dropped(
    shore: BrowserShore, endpoints: Endpoints, frames: list[dict]
) -> None:
    peer = await FakeExtension.connect(endpoints.browser_socket)
    for frame in frames:
        await peer.send(frame)
    with trio.fail_after(2):
        assert await peer.closed()
    assert shore.connected_count == 0


async def test_wrong_wire_major_is_told_incompatible(
    shore: BrowserShore, endpoints: Endpoints
) -> None:
    peer = await FakeExtension.connect(endpoints.browser_socket)
    await peer.send({"type": "relay_hello", "wire": 1})
    await peer.send({"type": "hello", "wire": 2, "browserId": "b", "generation": "g"})
    with trio.fail_after(2):
        answer = await peer.receive()
        assert answer["type"] == "incompatible"
        assert await peer.closed()
    assert shore.connected_count == 0


async def test_no_browser_is_reported_with_a_fix(shore: BrowserShore, endpoints: Endpoints) -> None:
    """The fix names the instance (a named one, whose browser a plain launch would not reach)."""
    with pytest.raises(BrowserUnavailable) as caught:
        await shore.request(None, "ping", {}, timeout=1)
    assert f"`ghostlight browser launch --instance {endpoints.instance}`" in caught.value.message


async def test_calls_behind_one_that_found_no_browser_fail_at_once_until_one_attaches(
    shore: BrowserShore, endpoints: Endpoints, nursery: trio.Nursery
) -> None:
    """One call waits for a browser to attach; calls queued behind it, once it found none, are
    told at once (each waiting in turn would answer the tenth after ten waits)."""
    began = trio.current_time()
    with pytest.raises(BrowserUnavailable, match=r"waited 0\.[0-9]s for the extension"):
        await shore.request(None, "ping", {}, timeout=1)
    assert trio.current_time() - began >= 0.3
    for _ in range(3):
        began = trio.current_time()
        with pytest.raises(BrowserUnavailable, match=r"none has attached for 0\.[0-9]s"):
            await shore.request(None, "ping", {}, timeout=1)
        assert trio.current_time() - began < 0.1
    await trio.sleep(0.35)  # long after: a new call waits again, and a browser that comes serves it
    await _served_by_a_late_browser(shore, endpoints, nursery)


async def test_a_cancel_ends_the_wait_for_a_browser_of_an_effect_that_was_never_sent(
    shore: BrowserShore,
) -> None:
    """An effect drains once sent, shielded from its caller's cancel; the wait for a browser to
    send it to comes before, so a cancel ends it and nothing is counted as dispatched."""
    dispatched: list[int] = []

    class Effects:
        async def atomic(self, effect: Any) -> Any:
            dispatched.append(1)
            with trio.CancelScope(shield=True):
                return await effect()

    call = ToolCall(WorkContext("w1", "navigate", None, "test", None), {}, Effects())
    began = trio.current_time()
    with trio.move_on_after(0.05):
        await atomic_request(call, shore, None, "navigate", {"url": "x"}, 2.0)
    assert trio.current_time() - began < 0.2
    assert dispatched == []


async def test_first_call_waits_for_a_late_browser(
    shore: BrowserShore, endpoints: Endpoints, nursery: trio.Nursery
) -> None:
    await _served_by_a_late_browser(shore, endpoints, nursery)


async def _served_by_a_late_browser(
    shore: BrowserShore, endpoints: Endpoints, nursery: trio.Nursery
) -> None:
    async def late_browser() -> None:
        await trio.sleep(0.1)
        peer, _ = await FakeExtension.attach(endpoints.browser_socket)
        request = await peer.receive()
        await peer.reply(request, {"pong": True})

    nursery.start_soon(late_browser)
    assert await shore.request(None, "ping", {}, timeout=2) == {"pong": True}


async def test_requests_and_results_rewrite_tab_ids(
    shore: BrowserShore, endpoints: Endpoints, registry: WorkspaceRegistry, nursery: trio.Nursery
) -> None:
    ws, _ = registry.open(None, "Claude Code")
    assert registry.adopt_tabs(ws, [compose(1, 7)])
    peer, _ = await FakeExtension.attach(endpoints.browser_socket)
    seen: list[dict] = []

    async def extension() -> None:
        request = await peer.receive()
        seen.append(request)
        await peer.reply(
            request,
            {
                "tabId": 7,
                "tabs": [{"tabId": 7, "title": "t", "url": "u"}, {"tabId": 8}],
                "groupId": 3,
                "note": "Tab 9 is not a tab Ghostlight manages. Valid tab IDs: 7, 8",
            },
        )

    nursery.start_soon(extension)
    result = await shore.request(
        ws, "tabs_context", {"ownedTabIds": [compose(1, 7), compose(2, 5)]}, timeout=2
    )
    request = seen[0]
    assert request["guid"] == registry.browser_key(ws) != ws  # the browser key, never the handle
    assert request["op"] == "tabs_context"
    assert request["args"] == {"ownedTabIds": [7]}
    assert request["workspace"] == {"groupTitle": "Ghostlight · Claude Code", "groupColor": "blue"}
    assert result["tabId"] == SLOT1 + 7
    assert [t["tabId"] for t in result["tabs"]] == [SLOT1 + 7, SLOT1 + 8]
    assert result["groupId"] == 3
    assert result["note"] == (
        f"Tab {SLOT1 + 9} is not a tab Ghostlight manages. Valid tab IDs: {SLOT1 + 7}, {SLOT1 + 8}"
    )


async def test_tab_requests_route_by_slot_and_native_id(
    shore: BrowserShore, endpoints: Endpoints, nursery: trio.Nursery
) -> None:
    a, _ = await FakeExtension.attach(endpoints.browser_socket, "browser-a")
    b, _ = await FakeExtension.attach(endpoints.browser_socket, "browser-b")

    async def browser_b() -> None:
        request = await b.receive()
        assert request["args"] == {"tabId": 5, "url": "https://example.test/"}
        await b.reply(request, {"url": "https://example.test/", "title": "", "loaded": True})

    nursery.start_soon(browser_b)
    result = await shore.request(
        None, "navigate", {"tabId": compose(2, 5), "url": "https://example.test/"}, timeout=2
    )
    assert result["loaded"] is True
    await a.aclose()


async def test_error_replies_keep_their_hop_and_rewrite_ids(
    shore: BrowserShore, endpoints: Endpoints, nursery: trio.Nursery
) -> None:
    peer, _ = await FakeExtension.attach(endpoints.browser_socket)

    async def extension() -> None:
        request = await peer.receive()
        await peer.send(
            {"type": "error", "id": request["id"], "error": {"message": "No tab 4", "hop": "cdp"}}
        )

    nursery.start_soon(extension)
    with pytest.raises(BrowserError) as caught:
        await shore.request(None, "tab_info", {"tabId": compose(1, 4)}, timeout=2)
    assert caught.value.hop == "cdp"
    assert caught.value.message == f"No tab {SLOT1 + 4}"
    assert caught.value.delivered is False


async def test_a_request_the_page_took_before_it_crashed_is_marked_delivered(
    shore: BrowserShore, endpoints: Endpoints, nursery: trio.Nursery
) -> None:
    peer, _ = await FakeExtension.attach(endpoints.browser_socket)

    async def extension() -> None:
        for delivered in (True, "yes"):  # only a true boolean counts
            request = await peer.receive()
            error = {"message": "crashed", "hop": "page", "code": "page_crashed"}
            await peer.send({"type": "error", "id": request["id"], "error": {**error, "delivered": delivered}})

    nursery.start_soon(extension)
    seen = []
    for _ in range(2):
        with pytest.raises(BrowserError) as caught:
            await shore.request(None, "cdp", {"tabId": compose(1, 4), "method": "Runtime.evaluate"}, timeout=2)
        seen.append((caught.value.code, caught.value.delivered))
    assert seen == [("page_crashed", True), ("page_crashed", False)]


async def test_an_error_page_failure_keeps_what_the_page_shows_failed(
    shore: BrowserShore, endpoints: Endpoints, nursery: trio.Nursery
) -> None:
    peer, _ = await FakeExtension.attach(endpoints.browser_socket)

    async def extension() -> None:
        for shown in ({"netError": "ERR_CONNECTION_REFUSED"}, "ERR_CONNECTION_REFUSED"):
            request = await peer.receive()
            error = {"message": "error page", "hop": "page", "code": "error_page", "errorPage": shown}
            await peer.send({"type": "error", "id": request["id"], "error": error})

    nursery.start_soon(extension)
    seen = []
    for _ in range(2):
        with pytest.raises(BrowserError) as caught:
            await shore.request(None, "content", {"tabId": compose(1, 4), "fn": "page_text"}, timeout=2)
        seen.append(caught.value.error_page)
    assert seen == [{"netError": "ERR_CONNECTION_REFUSED"}, None]  # only an object is taken


async def test_an_error_message_nested_past_what_is_followed_stays_prose(
    shore: BrowserShore, endpoints: Endpoints, nursery: trio.Nursery
) -> None:
    """An error text that looks like JSON but nests past what the parser follows is rewritten as
    prose, and the call fails with it, not with a RecursionError."""
    peer, _ = await FakeExtension.attach(endpoints.browser_socket)
    deep = "[" * 3000 + "]" * 3000

    async def extension() -> None:
        request = await peer.receive()
        await peer.send({"type": "error", "id": request["id"], "error": {"message": deep}})

    nursery.start_soon(extension)
    with pytest.raises(BrowserError) as caught:
        await shore.request(None, "tab_info", {"tabId": compose(1, 4)}, timeout=2)
    assert caught.value.message == deep


async def test_half_surrogate_pairs_from_a_page_arrive_as_replacement_characters(
    shore: BrowserShore, endpoints: Endpoints, nursery: trio.Nursery
) -> None:
    """Pages cut emoji in half (``title.slice(0, n)``); Chrome passes the half on as a JSON
    escape. It arrives as U+FFFD, keys included, whole pairs untouched, so the result can be
    encoded for the bridge and the audit trail like any other."""
    peer, _ = await FakeExtension.attach(endpoints.browser_socket)

    async def extension() -> None:
        request = await peer.receive()
        result = (
            '{"title":"cut \\ud83d","text":["a\\udc00b",'
            '{"k\\ud800":"whole \\ud83d\\ude00"}],"literal":"\\\\ud800"}'
        )
        body = f'{{"type":"response","id":"{request["id"]}","result":{result}}}'
        await peer.messages.send_body(body.encode())

    nursery.start_soon(extension)
    result = await shore.request(None, "tab_info", {"tabId": compose(1, 4)}, timeout=2)
    assert result == {
        "title": "cut \ufffd",
        "text": ["a\ufffdb", {"k\ufffd": "whole \U0001f600"}],
        "literal": "\\ud800",
    }
    encode_message(Outcome(work_id="w", kind="ok", structured=result))


async def test_a_number_json_cannot_carry_is_refused_before_sending(
    shore: BrowserShore, endpoints: Endpoints, nursery: trio.Nursery
) -> None:
    """Written as ``Infinity`` it would be no JSON for the browser's side of the link:
    the call is refused with nothing sent, and the next request goes through."""
    peer, _ = await FakeExtension.attach(endpoints.browser_socket)
    with pytest.raises(BrowserRefused, match="cannot be sent to the browser"):
        await shore.request(None, "computer", {"tabId": compose(1, 4), "x": float("inf")}, timeout=2)

    async def extension() -> None:
        request = await peer.receive()
        assert request["op"] == "tab_info"  # the refused request never arrived
        await peer.send({"type": "response", "id": request["id"], "result": {"ok": True}})

    nursery.start_soon(extension)
    assert await shore.request(None, "tab_info", {"tabId": compose(1, 4)}, timeout=2) == {"ok": True}


async def test_replies_only_count_from_the_connection_that_got_the_request(
    shore: BrowserShore, endpoints: Endpoints, nursery: trio.Nursery
) -> None:
    a, _ = await FakeExtension.attach(endpoints.browser_socket, "browser-a")
    b, _ = await FakeExtension.attach(endpoints.browser_socket, "browser-b")

    async def extensions() -> None:
        request = await a.receive()
        await b.reply(request, {"forged": True})
        await b.send({"type": "response", "id": "r999", "result": {}})
        await trio.sleep(0.05)
        await a.reply(request, {"genuine": True})

    nursery.start_soon(extensions)
    result = await shore.request(None, "ping", {}, timeout=2, slot=1)
    assert result == {"genuine": True}


async def test_disconnect_fails_pending_calls_as_outcome_unknown(
    shore: BrowserShore, endpoints: Endpoints, nursery: trio.Nursery
) -> None:
    peer, _ = await FakeExtension.attach(endpoints.browser_socket)

    async def vanish() -> None:
        await peer.receive()
        await peer.aclose()

    nursery.start_soon(vanish)
    with pytest.raises(OutcomeUnknown, match="disconnected before responding"):
        await shore.request(None, "navigate", {"tabId": compose(1, 1), "url": "x"}, timeout=2)


async def test_no_reply_within_the_bound_is_outcome_unknown(
    shore: BrowserShore, endpoints: Endpoints
) -> None:
    peer, _ = await FakeExtension.attach(endpoints.browser_socket)
    with pytest.raises(OutcomeUnknown, match="did not answer"):
        await shore.request(None, "ping", {}, timeout=0.2)
    await peer.aclose()


async def test_a_late_answer_on_the_link_it_went_out_on_lifts_its_quarantine(
    endpoints: Endpoints, registry: WorkspaceRegistry, nursery: trio.Nursery
) -> None:
    """The browser answering the very request that timed out is proof its outcome is known;
    the same id answered from another browser's link is not."""
    scheduler = Scheduler()
    shore = BrowserShore(endpoints, registry, hello_timeout=0.3, scheduler=scheduler)
    await nursery.start(shore.serve)
    a, _ = await FakeExtension.attach(endpoints.browser_socket, "browser-a")
    b, _ = await FakeExtension.attach(endpoints.browser_socket, "browser-b")
    surface = TabSurface(1, 4)
    with pytest.raises(OutcomeUnknown) as unknown:
        await shore.request(None, "computer", {"tabId": compose(1, 4)}, timeout=0.2)
    scheduler.quarantine(surface, unknown.value.proof)  # what the engine does with it
    request = await a.receive()

    await b.reply(request, {"late": True})
    await trio.sleep(0.05)
    assert scheduler.is_quarantined(surface)
    await a.reply(request, {"late": True})
    await until(lambda: not scheduler.is_quarantined(surface))


async def test_a_reply_flushed_on_the_next_link_of_the_same_browser_lifts_its_quarantine(
    endpoints: Endpoints, registry: WorkspaceRegistry, nursery: trio.Nursery
) -> None:
    """The link dropped under a call (its relay died): the caller heard "outcome unknown" and
    the tab is quarantined. The extension holds the reply it could not send and flushes it on
    its next link; from the same browser run, that is the proof of how the call ended. The same
    id from another browser is not."""
    scheduler = Scheduler()
    shore = BrowserShore(endpoints, registry, hello_timeout=0.3, scheduler=scheduler)
    await nursery.start(shore.serve)
    surface = TabSurface(1, 4)
    received: list[dict[str, object]] = []
    for replier, lifted in (("browser-b", False), ("browser-a", True)):
        first, _ = await FakeExtension.attach(endpoints.browser_socket, "browser-a", "gen-1")
        received.clear()

        async def drop_the_link(peer: FakeExtension = first) -> None:
            received.append(await peer.receive())
            await peer.aclose()

        nursery.start_soon(drop_the_link)
        with pytest.raises(OutcomeUnknown, match="disconnected before responding") as unknown:
            await shore.request(None, "computer", {"tabId": compose(1, 4)}, timeout=2)
        scheduler.quarantine(surface, unknown.value.proof)  # what the engine does with it
        relinked, _ = await FakeExtension.attach(endpoints.browser_socket, replier, "gen-1")
        await relinked.reply(received[0], {"clicked": True})
        if lifted:
            await until(lambda: not scheduler.is_quarantined(surface))
        else:
            await trio.sleep(0.1)
            assert scheduler.is_quarantined(surface)
        await relinked.aclose()


async def test_new_generation_purges_tabs_and_fails_pending_before_publishing(
    shore: BrowserShore, endpoints: Endpoints, registry: WorkspaceRegistry, nursery: trio.Nursery
) -> None:
    ws, _ = registry.open(None, "agent")
    old, _ = await FakeExtension.attach(endpoints.browser_socket, "browser-a", "gen-1")
    assert registry.adopt_tabs(ws, [compose(1, 3)])
    failures: list[Exception] = []

    async def pending_call() -> None:
        try:
            await shore.request(ws, "navigate", {"tabId": compose(1, 3), "url": "x"}, timeout=5)
        except OutcomeUnknown as exc:
            failures.append(exc)

    nursery.start_soon(pending_call)
    await old.receive()
    restarted, welcome = await FakeExtension.attach(endpoints.browser_socket, "browser-a", "gen-2")
    assert welcome["slot"] == 1
    await until(lambda: failures)
    assert "Browser restarted before responding" in str(failures[0])
    assert registry.owned_tabs(ws) == frozenset()
    with trio.fail_after(2):
        assert await old.closed()  # the replaced link is gone; its late reply could not count
    assert shore.connected_count == 1


async def test_reconnect_with_same_generation_keeps_tabs(
    shore: BrowserShore, endpoints: Endpoints, registry: WorkspaceRegistry
) -> None:
    ws, _ = registry.open(None, "agent")
    first, _ = await FakeExtension.attach(endpoints.browser_socket, "browser-a", "gen-1")
    registry.adopt_tabs(ws, [compose(1, 3)])
    await first.aclose()
    second, _ = await FakeExtension.attach(endpoints.browser_socket, "browser-a", "gen-1")
    assert registry.owned_tabs(ws) == {compose(1, 3)}
    await second.aclose()


async def test_tab_events_update_membership(
    shore: BrowserShore, endpoints: Endpoints, registry: WorkspaceRegistry, nursery: trio.Nursery
) -> None:
    ws, _ = registry.open(None, "agent")
    peer, _ = await FakeExtension.attach(endpoints.browser_socket)

    async def extension() -> None:
        request = await peer.receive()
        await peer.reply(request, {"tabs": [{"tabId": 3}]})

    nursery.start_soon(extension)
    await shore.request(ws, "tabs_context", {}, timeout=2)  # the shore now knows the workspace
    registry.adopt_tabs(ws, [compose(1, 3), compose(1, 4)])
    await peer.send({"type": "tab_created", "tabId": 10, "openerTabId": 3})
    await peer.send({"type": "tab_created", "tabId": 11, "openerTabId": 99})
    await peer.send({"type": "tab_removed", "tabId": 4})
    await peer.send({"type": "some_future_event"})
    await until(lambda: registry.owned_tabs(ws) == {compose(1, 3), compose(1, 10)})
    await peer.send({"type": "tab_released", "tabId": 10})  # the user moved it out of the group
    await peer.send({"type": "tab_released", "tabId": True})
    await until(lambda: registry.owned_tabs(ws) == {compose(1, 3)})
    assert not registry.verify_tab(ws, compose(1, 10))


async def test_large_request_without_chunking_fails_before_sending(
    shore: BrowserShore, endpoints: Endpoints
) -> None:
    peer, _ = await FakeExtension.attach(endpoints.browser_socket, features=("tabGroupsV1",))
    with pytest.raises(BrowserRefused) as caught:
        await shore.request(None, "content", {"value": "x" * 1_000_000}, timeout=2)
    assert caught.value.message == wire.TOO_OLD_FOR_LARGE
    with trio.move_on_after(0.1) as nothing:
        await peer.receive()
    assert nothing.cancelled_caught


async def test_large_request_is_chunked_when_negotiated(
    shore: BrowserShore, endpoints: Endpoints, nursery: trio.Nursery
) -> None:
    peer, _ = await FakeExtension.attach(endpoints.browser_socket)
    payload = "y" * 2_000_000

    async def extension() -> None:
        chunks = [await peer.receive()]
        while len(chunks) < chunks[0]["count"]:
            chunks.append(await peer.receive())
        assert all(c["type"] == "chunk" for c in chunks)
        body = b"".join(base64.b64decode(c["data"]) for c in chunks)
        assert len(body) == chunks[0]["totalBytes"]
        assert hashlib.sha256(body).hexdigest() == chunks[0]["sha256"]
        assert all(len(wire.encode(c)) <= MAX_FRAME_TO_CHROME for c in chunks)
        request = wire.decode(body)
        assert request["id"] == chunks[0]["requestId"]
        assert request["args"]["value"] == payload
        await peer.reply(request, {"ok": True})

    nursery.start_soon(extension)
    assert await shore.request(None, "content", {"value": payload}, timeout=5) == {"ok": True}


async def test_workspaces_are_told_apart_and_their_end_is_announced(
    shore: BrowserShore, endpoints: Endpoints, registry: WorkspaceRegistry, nursery: trio.Nursery
) -> None:
    """Two clients with the same label get different group titles and colours; a workspace
    that ends is announced once, so its group stops looking live. One that never reached the
    browser is not announced."""
    registry.retire_listeners.append(shore.workspace_ended)
    first, _ = registry.open(None, "Claude Code")
    second, _ = registry.open(None, "Claude Code")
    other, _ = registry.open(None, "Cursor")
    silent, _ = registry.open(None, "Cursor")
    peer, _ = await FakeExtension.attach(endpoints.browser_socket)
    seen: list[dict] = []

    async def extension() -> None:
        while True:
            frame = await peer.receive()
            seen.append(frame)
            if frame["type"] == "request":
                await peer.reply(frame, {})

    nursery.start_soon(extension)
    for workspace in (first, second, other):
        await shore.request(workspace, "tabs_context", {}, timeout=2)
    shown = [frame["workspace"] for frame in seen]
    assert shown == [
        {"groupTitle": "Ghostlight · Claude Code", "groupColor": "blue"},
        {"groupTitle": "Ghostlight · Claude Code 2", "groupColor": "red"},
        {"groupTitle": "Ghostlight · Cursor", "groupColor": "yellow"},
    ]
    registry.release(second)
    registry.release(silent)
    await until(lambda: len(seen) == 4)
    assert seen[3] == {
        "type": "workspace_ended",
        "guid": registry.browser_key(second),
        "workspace": {"groupTitle": "Ghostlight · Claude Code 2 (ended)"},
        "closeTabs": False,
    }
    third, _ = registry.open(None, "Claude Code")  # takes the freed number and colour
    await shore.request(third, "tabs_context", {}, timeout=2)
    assert seen[4]["workspace"] == {"groupTitle": "Ghostlight · Claude Code 2", "groupColor": "red"}
    await trio.sleep(0.1)
    assert len(seen) == 5


async def test_a_browser_no_one_sees_is_asked_to_close_an_ended_workspace_s_tabs(
    shore: BrowserShore, endpoints: Endpoints, registry: WorkspaceRegistry, nursery: trio.Nursery
) -> None:
    registry.retire_listeners.append(shore.workspace_ended)
    seen: dict[str, list[dict]] = {"screen": [], "headless": []}
    peers = {
        "screen": (await FakeExtension.attach(endpoints.browser_socket, "browser-a"))[0],
        "headless": (await FakeExtension.attach(endpoints.browser_socket, "browser-b", headless=True))[0],
    }
    for name, peer in peers.items():

        async def extension(name: str = name, peer: FakeExtension = peer) -> None:
            while True:
                frame = await peer.receive()
                seen[name].append(frame)
                if frame["type"] == "request":
                    await peer.reply(frame, {})

        nursery.start_soon(extension)
    workspace, _ = registry.open(None, "agent")
    await shore.request(workspace, "ping", {}, slot=1, timeout=2)
    registry.release(workspace)
    await until(lambda: all(frames and frames[-1]["type"] == "workspace_ended" for frames in seen.values()))
    assert seen["screen"][-1]["closeTabs"] is False
    assert seen["headless"][-1]["closeTabs"] is True


def test_a_child_tab_reported_while_another_workspace_expires_is_still_adopted(
    endpoints: Endpoints,
) -> None:
    """Looking workspaces up may retire one whose grace ran out, which takes it out of the
    shore's known workspaces while the child's opener is being looked for: never a crash of
    the service, and the child still goes to its opener's workspace."""
    from ghostlight_trio.workspace import WorkspaceLimits

    now = [0.0]
    registry = WorkspaceRegistry(WorkspaceLimits(idle_grace=10.0), clock=lambda: now[0])
    shore = BrowserShore(endpoints, registry)
    registry.retire_listeners.append(shore.workspace_ended)
    older, _ = registry.open(None, "a")
    registry.adopt_tabs(older, [compose(1, 3)])
    shore.tab_groups.sent(older)
    expiring, _ = registry.open(None, "b", attached=False)
    shore.tab_groups.sent(expiring)
    now[0] = 11.0
    shore.tab_events.created(1, {"tabId": 10, "openerTabId": 3})
    assert registry.owned_tabs(older) == {compose(1, 3), compose(1, 10)}
    assert not registry.exists(expiring)


async def test_a_browser_attaching_after_a_workspace_ended_is_told(
    shore: BrowserShore, endpoints: Endpoints, registry: WorkspaceRegistry, nursery: trio.Nursery
) -> None:
    """A workspace that ends while its browser's link is down is still marked ended there once
    the browser is back (a headless one would otherwise keep its tabs open for ever)."""
    registry.retire_listeners.append(shore.workspace_ended)
    workspace, _ = registry.open(None, "agent")
    peer, _ = await FakeExtension.attach(endpoints.browser_socket, headless=True)

    async def answer_once() -> None:
        await peer.reply(await peer.receive(), {})

    nursery.start_soon(answer_once)
    await shore.request(workspace, "ping", {}, timeout=2)
    await peer.aclose()
    await until(lambda: shore.connected_count == 0)
    registry.release(workspace)  # while no browser is attached
    again, _ = await FakeExtension.attach(endpoints.browser_socket, generation="gen-1", headless=True)
    notice = await again.receive()
    assert notice == {
        "type": "workspace_ended",
        "guid": registry.browser_key(workspace),
        "workspace": {"groupTitle": "Ghostlight · agent (ended)"},
        "closeTabs": True,
    }


async def test_the_welcome_names_the_live_workspaces_and_no_ended_one(
    shore: BrowserShore, endpoints: Endpoints, registry: WorkspaceRegistry
) -> None:
    """The browser ends every other workspace it remembers (after a service restart, all of
    them): the welcome lists exactly the live ones."""
    kept, _ = registry.open(None, "agent-a")
    gone, _ = registry.open(None, "agent-b")
    registry.release(gone)
    _, welcome = await FakeExtension.attach(endpoints.browser_socket, "browser-a")
    assert welcome["liveWorkspaces"] == [registry.browser_key(kept)]


async def test_a_workspace_keeps_its_browser_key_for_its_life_and_the_key_is_no_handle(
    shore: BrowserShore, endpoints: Endpoints, registry: WorkspaceRegistry, nursery: trio.Nursery
) -> None:
    """The extension files a workspace's tabs under the key its requests carry, in storage that
    outlives its worker and its native host: every later welcome names the same key, also after
    the workspace's client reattached. The key is no handle the registry knows; another service
    life (a restart, which ends every workspace) keys the same handle differently."""
    ws, _ = registry.open(None, "agent")
    peer, welcome = await FakeExtension.attach(endpoints.browser_socket)
    seen: list[dict] = []

    async def answer_once() -> None:
        seen.append(await peer.receive())
        await peer.reply(seen[0], {})

    nursery.start_soon(answer_once)
    await shore.request(ws, "ping", {}, timeout=2)
    key = seen[0]["guid"]
    assert welcome["liveWorkspaces"] == [key]
    assert key != ws and not registry.exists(key)
    registry.detach(ws)  # its client's stream was lost; it comes back for its workspace
    assert registry.open(ws, "agent") == (ws, True)
    await peer.aclose()
    await until(lambda: shore.connected_count == 0)
    again, welcome = await FakeExtension.attach(endpoints.browser_socket)
    assert welcome["liveWorkspaces"] == [key] == [registry.browser_key(ws)]
    assert WorkspaceRegistry().browser_key(ws) != key
    await again.aclose()


async def test_status_tells_a_slow_page_from_a_browser_that_answers_nothing(
    endpoints: Endpoints, registry: WorkspaceRegistry, nursery: trio.Nursery
) -> None:
    """While a request waits on a silent browser, the shore pings it: a browser whose page is
    merely slow answers the ping; one that is frozen (or its native host) answers nothing, and
    the status says so. A frame from it again clears that."""
    shore = BrowserShore(endpoints, registry, hello_timeout=0.3, silence_limit=0.3)
    await nursery.start(shore.serve)
    peer, _ = await FakeExtension.attach(endpoints.browser_socket)
    [idle] = shore.summaries()
    assert (idle.waiting, idle.silent_for, idle.unanswered_ping_for) == (0, 0, None)

    async def slow_call() -> None:
        with pytest.raises(OutcomeUnknown):
            await shore.request(None, "content", {"tabId": compose(1, 4)}, timeout=30)

    nursery.start_soon(slow_call)
    call = await peer.receive()
    ping = await peer.receive()  # after the silence: the extension answers it, however slow the page
    assert (call["op"], ping["op"]) == ("content", "ping")
    await peer.reply(ping, {})
    await until(lambda: shore.summaries()[0].silent_for == 0, within=5)
    assert shore.summaries()[0].unanswered_ping_for is None

    unanswered = await peer.receive()  # the next silence's ping goes unanswered: frozen
    assert unanswered["op"] == "ping"
    await until(lambda: shore.summaries()[0].unanswered_ping_for is not None, within=5)
    assert shore.summaries()[0].waiting == 1  # the call; the service's own pings are not counted
    await peer.send({"type": "tab_removed", "tabId": 99})  # it speaks again
    await until(lambda: shore.summaries()[0].unanswered_ping_for is None, within=5)
    await peer.aclose()


@pytest.mark.parametrize("stranger", [[1], {"id": 1}, 7, None, True])
async def test_a_reply_whose_id_is_not_text_is_nobody_s_and_the_link_lives_on(
    shore: BrowserShore, endpoints: Endpoints, nursery: trio.Nursery, stranger: object
) -> None:
    """Request ids are text: a reply naming a list, a map, a number or nothing answers no
    request, and neither the link nor the shore ends over it."""
    peer, _ = await FakeExtension.attach(endpoints.browser_socket)

    async def extension() -> None:
        request = await peer.receive()
        await peer.send({"type": "response", "id": stranger, "result": {"url": "wrong"}})
        await peer.reply(request, {"url": "http://right.test/"})

    nursery.start_soon(extension)
    answer = await shore.request(None, "tab_info", {"tabId": compose(1, 4)}, timeout=5)
    assert answer == {"url": "http://right.test/"}
    assert shore.connected_count == 1


def test_a_new_tab_joins_only_the_workspace_of_the_tab_that_opened_it(endpoints: Endpoints) -> None:
    """The opener amendment to "ownership grows only from the creator tools' results"
    (specs/browser-wire.md, Tab ownership): a reported child joins the workspace owning its
    opener, on the same browser, and no other; a tab opened by anyone else joins none."""
    from ghostlight_trio.workspace import WorkspaceLimits

    registry = WorkspaceRegistry(WorkspaceLimits(), clock=lambda: 0.0)
    shore = BrowserShore(endpoints, registry)
    first, _ = registry.open(None, "a")
    second, _ = registry.open(None, "b")
    registry.adopt_tabs(first, [compose(1, 3)])
    registry.adopt_tabs(second, [compose(1, 5)])
    shore.tab_groups.sent(first)
    shore.tab_groups.sent(second)
    shore.tab_events.created(1, {"tabId": 10, "openerTabId": 5})  # opened by b's page
    shore.tab_events.created(1, {"tabId": 11, "openerTabId": 99})  # by the user's own tab
    shore.tab_events.created(2, {"tabId": 12, "openerTabId": 3})  # tab 3 of another browser
    shore.tab_events.created(1, {"tabId": 13})  # no opener named
    shore.tab_events.created(1, {"tabId": "14", "openerTabId": 3})  # not a tab id
    assert registry.owned_tabs(first) == {compose(1, 3)}
    assert registry.owned_tabs(second) == {compose(1, 5), compose(1, 10)}
    assert all(registry.owner_of(compose(s, t)) is None for s, t in ((1, 11), (2, 12), (1, 13)))
