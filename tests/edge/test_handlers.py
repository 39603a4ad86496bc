"""The two dated handlers and era pinning, driven as pure state machines."""

from __future__ import annotations

import json
from typing import Any

import cbor2
from ghostlight_mcp_connector.actions import Action, ConnectBridge, SendBridge, WriteMessage
from ghostlight_mcp_connector.era import EraRouter

from ghostlight_trio.transport.bridge import (
    CatalogChanged,
    CatalogProjection,
    CatalogRequest,
    ImageBlock,
    OpenWorkspace,
    Outcome,
    Progress,
    Start,
    Started,
    TextBlock,
    ToolDescriptor,
    WorkspaceOpened,
    for_peer,
)
from ghostlight_trio.transport.bridge_codec import decode_message, encode_message

M = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
}
TOOLS = [
    ToolDescriptor(
        "tabs_context_mcp", "T", "", {"type": "object", "properties": {}}, {}, "creates"
    ),
    ToolDescriptor("navigate", "N", "", {"type": "object", "properties": {"url": {}}}, {}, "uses"),
    ToolDescriptor("update_plan", "U", "", {"type": "object"}, {}, "independent"),
]


def router() -> EraRouter:
    return EraRouter(
        server_info={"name": "g", "version": "0"},
        instructions_2025="i",
        instructions_2026="i",
        page_size=2,
    )


def router_2026_07_28() -> EraRouter:
    """Pinned to 2026-07-28 (by an empty listen) with the bridge up."""
    r = router()
    listen = {"_meta": M, "notifications": {}}
    feed(r, {"jsonrpc": "2.0", "id": "s", "method": "subscriptions/listen", "params": listen})
    assert r.era == "2026-07-28"
    r.bridge_connected()
    return r


def feed(r: EraRouter, message: dict[str, Any]) -> list[Action]:
    return r.receive_line(json.dumps(message).encode())


def tools_call(request_id: int | str, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


def written(actions: list[Action]) -> list[dict[str, Any]]:
    return [a.payload for a in actions if isinstance(a, WriteMessage)]


def sent(actions: list[Action]) -> list[Any]:
    return [a.message for a in actions if isinstance(a, SendBridge)]


def ready_2025_11_25() -> tuple[EraRouter, str]:
    r = router()
    init = {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "c", "version": "1"},
    }
    actions = feed(r, {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": init})
    assert written(actions)[0]["result"]["protocolVersion"] == "2025-11-25"
    assert any(isinstance(a, ConnectBridge) for a in actions)
    held = sent(r.bridge_connected())
    assert isinstance(held[0], OpenWorkspace)
    r.receive_bridge(WorkspaceOpened(held[0].sequence, "ws-1", False))
    feed(r, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    return r, "ws-1"


def test_2025_11_25_call_carries_the_workspace_and_progress_is_monotonic() -> None:
    r, ws = ready_2025_11_25()
    call = {"name": "update_plan", "arguments": {}, "_meta": {"progressToken": "p"}}
    start = sent(feed(r, tools_call(5, call)))[0]
    assert isinstance(start, Start) and start.workspace_id == ws and start.context.wants_progress
    assert "5" not in repr(start.arguments)
    r.receive_bridge(Started(start.sequence, "w1"))
    assert len(written(r.receive_bridge(Progress("w1", 1.0)))) == 1
    assert written(r.receive_bridge(Progress("w1", 1.0))) == []  # not increasing
    out = written(
        r.receive_bridge(Outcome("w1", "ok", [TextBlock("t"), ImageBlock(b"\x01", "image/png")]))
    )
    assert out == [
        {
            "jsonrpc": "2.0",
            "id": 5,
            "result": {
                "content": [
                    {"type": "text", "text": "t"},
                    {"type": "image", "data": "AQ==", "mimeType": "image/png"},
                ]
            },
        }
    ]
    assert written(r.receive_bridge(Progress("w1", 2.0))) == []  # none after the response


def test_bridge_loss_reports_outcome_unknown_then_reattaches() -> None:
    r, ws = ready_2025_11_25()
    start = sent(feed(r, tools_call(1, {"name": "x"})))[0]
    r.receive_bridge(Started(start.sequence, "w1"))
    [lost] = written(r.bridge_lost())
    assert lost["error"]["code"] == -33003 and lost["error"]["data"]["outcome"] == "outcome_unknown"
    actions = feed(r, tools_call(2, {"name": "x"}))
    assert any(isinstance(a, ConnectBridge) for a in actions)
    [reopen] = sent(r.bridge_connected())
    assert isinstance(reopen, OpenWorkspace) and reopen.reattach == ws
    [retry] = sent(r.receive_bridge(WorkspaceOpened(reopen.sequence, "ws-2", False)))
    assert isinstance(retry, Start) and retry.workspace_id == "ws-2"
    # The first answer in the new workspace says the old one (and its tab ids) is gone.
    r.receive_bridge(Started(retry.sequence, "w2"))
    [answer] = written(r.receive_bridge(Outcome("w2", "ok", [TextBlock("listed")])))
    said = [block["text"] for block in answer["result"]["content"]]
    assert said[0].startswith("Note: the Ghostlight service restarted") and said[1] == "listed"
    third = sent(feed(r, tools_call(3, {"name": "x"})))[0]
    r.receive_bridge(Started(third.sequence, "w3"))
    [later] = written(r.receive_bridge(Outcome("w3", "ok", [TextBlock("again")])))
    assert [block["text"] for block in later["result"]["content"]] == ["again"]  # said once


def test_failed_connection_answers_not_sent() -> None:
    r = router()
    feed(r, tools_call(1, {"_meta": M, "name": "x"}))
    [answer] = written(r.bridge_failed("nothing listens"))
    assert answer["error"]["code"] == -33001 and "nothing listens" in answer["error"]["message"]


def test_2026_07_28_workspace_argument_and_projection() -> None:
    r = router()
    params = {"_meta": M, "name": "navigate", "arguments": {"url": "u", "workspaceId": "ws-9"}}
    actions = feed(r, tools_call(1, params))
    assert r.era == "2026-07-28"
    [start] = sent(r.bridge_connected() + actions)
    assert start.workspace_id == "ws-9" and start.arguments == {"url": "u"}
    r.receive_bridge(Started(start.sequence, "w"))
    [out] = written(
        r.receive_bridge(Outcome("w", "ok", [TextBlock("x")], {"a": 1}, workspace_id="ws-9"))
    )
    assert out["result"]["structuredContent"] == {"a": 1, "workspaceId": "ws-9"}
    [fetch] = sent(
        feed(r, {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta": M}})
    )
    assert isinstance(fetch, CatalogRequest)
    [page] = written(r.receive_bridge(CatalogProjection(fetch.sequence, 1, TOOLS)))
    tools = page["result"]["tools"]
    assert list(tools[0]["inputSchema"]["properties"]) == ["workspaceId"]
    assert tools[0]["outputSchema"]["required"] == ["workspaceId"]
    assert "workspaceId" in tools[1]["inputSchema"]["properties"] and "outputSchema" not in tools[1]
    assert page["result"]["nextCursor"] and page["result"]["cacheScope"] == "public"
    cursor = page["result"]["nextCursor"]
    [last] = written(
        feed(
            r,
            {
                "jsonrpc": "2.0",
                "id": 3,
                "method": "tools/list",
                "params": {"_meta": M, "cursor": cursor},
            },
        )
    )
    assert [t["name"] for t in last["result"]["tools"]] == ["update_plan"]
    assert "nextCursor" not in last["result"]


def test_restricted_list_is_private_and_uncached() -> None:
    r = router()
    feed(r, {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta": M}})
    [fetch] = sent(r.bridge_connected())
    [page] = written(
        r.receive_bridge(CatalogProjection(fetch.sequence, 1, TOOLS[:1], restricted=True))
    )
    assert page["result"]["ttlMs"] == 0 and page["result"]["cacheScope"] == "private"


def test_concurrent_requests_keep_their_own_metadata() -> None:
    r = router_2026_07_28()
    a = dict(
        M,
        **{
            "io.modelcontextprotocol/clientInfo": {"name": "alpha", "version": "1"},
            "progressToken": 1,
        },
    )
    b = dict(M, **{"io.modelcontextprotocol/clientInfo": {"name": "beta", "version": "1"}})
    [sa] = sent(feed(r, tools_call(1, {"_meta": a, "name": "x"})))
    [sb] = sent(feed(r, tools_call(2, {"_meta": b, "name": "x"})))
    assert (sa.context.client_label, sa.context.wants_progress) == ("alpha", True)
    assert (sb.context.client_label, sb.context.wants_progress) == ("beta", False)


def test_listen_gets_only_its_own_changes_and_closes_gracefully() -> None:
    r = router()
    feed(
        r,
        {
            "jsonrpc": "2.0",
            "id": "L",
            "method": "subscriptions/listen",
            "params": {"_meta": M, "notifications": {"toolsListChanged": True}},
        },
    )
    feed(
        r,
        {
            "jsonrpc": "2.0",
            "id": 9,
            "method": "subscriptions/listen",
            "params": {"_meta": M, "notifications": {}},
        },
    )
    [note] = written(r.receive_bridge(CatalogChanged(4)))
    assert note["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"] == "L"
    closing = written(r.close())
    assert [c["id"] for c in closing] == ["L", 9]


def test_cancel_before_started_cancels_on_the_service_and_suppresses_the_answer() -> None:
    r = router_2026_07_28()
    [start] = sent(feed(r, tools_call(1, {"_meta": M, "name": "x"})))
    assert (
        feed(r, {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}})
        == []
    )
    [cancel] = sent(r.receive_bridge(Started(start.sequence, "w")))
    assert cancel.work_id == "w"
    assert r.receive_bridge(Outcome("w", "cancelled")) == []


def test_a_call_cancelled_while_the_bridge_connects_is_never_sent() -> None:
    """Found by the wire-race fuzzer: a call that came while the bridge was still connecting
    waited in the link; cancelled there, it still went out once the bridge was up, and the
    service ran a call its client had cancelled before anything was sent."""
    r = router()
    first = {"_meta": M, "name": "navigate", "arguments": {"url": "u1"}}
    assert feed(r, tools_call(1, first)) == [ConnectBridge(launch=True)]
    second = {"_meta": M, "name": "navigate", "arguments": {"url": "u2"}}
    assert feed(r, tools_call(2, second)) == []
    cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}
    assert feed(r, cancel) == []
    [start] = sent(r.bridge_connected())
    assert start.arguments == {"url": "u2"}
    assert r.owed() == 1 and r.awaiting_service()


def test_hostile_meta_values_get_an_answer_and_the_edge_serves_on() -> None:
    """A log level that is a list, a restriction given as JSON text that nests without end or
    holds half a surrogate pair, and a cursor naming a number of thousands of digits: each is
    answered (an invalid-params error, or a restriction the service denies), never a crash."""
    import base64

    r = router_2026_07_28()
    bad_level = dict(M, **{"io.modelcontextprotocol/logLevel": ["debug"]})
    [answer] = written(feed(r, tools_call(1, {"_meta": bad_level, "name": "x"})))
    assert answer["id"] == 1 and answer["error"]["code"] == -32602
    texts = ("[" * 100_000, '{"a":' * 500 + "1" + "}" * 500, '{"name":"\\ud800"}')
    for number, text in enumerate(texts, 10):
        meta = dict(M, **{"io.ghostlight/restriction": text})
        [start] = sent(feed(r, tools_call(number, {"_meta": meta, "name": "x"})))
        assert start.context.restriction == {"invalid": True}, text[:20]
    huge = base64.urlsafe_b64encode(b"gl1:1:" + b"9" * 4301).decode().rstrip("=")
    [listed] = written(
        feed(
            r,
            {
                "jsonrpc": "2.0",
                "id": 3,
                "method": "tools/list",
                "params": {"_meta": M, "cursor": huge},
            },
        )
    )
    assert listed["id"] == 3 and listed["error"]["code"] == -32602


def test_2025_11_25_list_with_the_id_of_a_running_call_is_refused_not_answered_twice() -> None:
    r, _ = ready_2025_11_25()
    params = {"name": "update_plan", "arguments": {}}
    [start] = sent(feed(r, tools_call(5, params)))
    [refused] = written(feed(r, {"jsonrpc": "2.0", "id": 5, "method": "tools/list"}))
    assert refused["id"] == 5 and refused["error"]["code"] == -32600
    r.receive_bridge(Started(start.sequence, "w"))
    [done] = written(r.receive_bridge(Outcome("w", "ok", [TextBlock("x")])))
    assert done["id"] == 5 and "result" in done


def test_a_call_the_service_cancelled_says_why_and_keeps_its_own_retry_advice() -> None:
    """Cancelled by the user's kill switch mid-typing: the message carries the service's words
    (and what ran), so the caller does not read a bare 'may have run' next to 'Do not retry'."""
    r = router_2026_07_28()
    [start] = sent(feed(r, tools_call(1, {"_meta": M, "name": "x"})))
    r.receive_bridge(Started(start.sequence, "w"))
    why = (
        "Stopped by the user's kill switch. Do not retry. Done before it stopped: typed 64 of 300."
    )
    [error] = written(r.receive_bridge(Outcome("w", "cancelled", [TextBlock(why)])))
    assert error["error"]["code"] == -33003
    assert error["error"]["message"].endswith(why)
    assert "before retrying" not in error["error"]["data"]["nextStep"]


def test_a_call_the_service_cancelled_before_it_started_is_not_said_to_have_maybe_run() -> None:
    """A queued call the service cancelled (it was stopping) never ran: the message is the
    service's word for that, not 'it may have run' beside 'nothing ran'."""
    r = router_2026_07_28()
    [start] = sent(feed(r, tools_call(1, {"_meta": M, "name": "x"})))
    r.receive_bridge(Started(start.sequence, "w"))
    why = "Cancelled before it started; nothing ran."
    [error] = written(r.receive_bridge(Outcome("w", "cancelled", [TextBlock(why)])))
    assert error["error"]["message"] == f"The service cancelled the call. {why}"
    assert error["error"]["data"]["outcome"] == "cancelled"
    # Without the service's words, nothing is known of it: it may have run.
    [start] = sent(feed(r, tools_call(2, {"_meta": M, "name": "x"})))
    r.receive_bridge(Started(start.sequence, "v"))
    [bare] = written(r.receive_bridge(Outcome("v", "cancelled", [])))
    assert "it may have run" in bare["error"]["message"]


def test_2026_07_28_restricted_list_is_fetched_for_that_request_alone() -> None:
    r = router_2026_07_28()
    restricted = {**M, "io.ghostlight/restriction": {"schema": 3}}
    [ask] = sent(
        feed(
            r, {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": restricted}}
        )
    )
    assert isinstance(ask, CatalogRequest) and ask.restriction == {"schema": 3}
    assert decode_message(encode_message(ask)) == ask
    assert "restriction" not in cbor2.loads(encode_message(CatalogRequest(7)))
    assert for_peer(ask, 0) == CatalogRequest(ask.sequence)  # a 1.0 service: the whole list
    assert for_peer(ask, 1) is ask
    [page] = written(
        r.receive_bridge(CatalogProjection(ask.sequence, 1, TOOLS[2:], restricted=True))
    )
    assert [t["name"] for t in page["result"]["tools"]] == ["update_plan"]
    assert (page["result"]["cacheScope"], page["result"]["ttlMs"]) == ("private", 0)
    # Nothing was kept for others: a list without a restriction fetches the shared projection.
    [fetch] = sent(
        feed(r, {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta": M}})
    )
    assert fetch.restriction is None and fetch.sequence != ask.sequence
    # A restricted list the client cancels is owed nothing; one a bridge loss ends is unavailable.
    [ask3] = sent(
        feed(
            r, {"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {"_meta": restricted}}
        )
    )
    feed(r, {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 3}})
    assert written(r.receive_bridge(CatalogProjection(ask3.sequence, 1, TOOLS))) == []
    sent(
        feed(
            r, {"jsonrpc": "2.0", "id": 4, "method": "tools/list", "params": {"_meta": restricted}}
        )
    )
    lost = written(r.bridge_lost())
    assert {m["id"]: m["error"]["code"] for m in lost if "id" in m}.get(4) == -33001
