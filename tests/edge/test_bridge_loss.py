"""Bridge loss and isolation with real processes: no hang, truthful outcomes, no cross-routing."""

from __future__ import annotations

import json
import os
import signal
import socket
import threading
import time

from ghostlight_trio.transport.proof import SQUATTER_MESSAGE

from .harness import INIT, META, Connector, Instance

CALL_SLOW = {
    "jsonrpc": "2.0",
    "id": 7,
    "method": "tools/call",
    "params": {"name": "update_plan", "arguments": {"domains": [], "approach": []}},
}

STATELESS_CALL = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "tools/call",
    "params": {"_meta": json.loads(META), "name": "update_plan", "arguments": {}},
}
"""A call in the stateless revision: it needs no handshake first."""


def plan_call(request_id: int, domains: object) -> dict:
    """An ``update_plan`` call (2025-11-25, after the handshake) with these domains."""
    return tool_call(request_id, "update_plan", {"domains": domains, "approach": []})


def tool_call(request_id: int, name: str, arguments: dict) -> dict:
    """A ``tools/call`` request of the 2025-11-25 revision (after the handshake)."""
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments},
    }


def _handshake(connector: Connector) -> None:
    connector.send(f'{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{INIT}}}')
    assert connector.read()["result"]["protocolVersion"] == "2025-11-25"
    connector.send('{"jsonrpc":"2.0","method":"notifications/initialized"}')


def test_service_killed_mid_call_then_reconnect(own_instance: Instance) -> None:
    """A slow call on a service that dies: outcome_unknown at once; the next call succeeds.

    The first service is the fake (it can be slow on demand); after it dies the connector
    starts the real service itself and reopens its workspace.
    """
    own_instance.kind = "fake"
    own_instance.start_service(FAKE_PLAN_DELAY="30")
    connector = Connector(own_instance)
    try:
        _handshake(connector)
        connector.send(CALL_SLOW)
        time.sleep(1.0)
        started = time.monotonic()
        own_instance.kill_service()
        answer = connector.read(timeout=5)
        assert time.monotonic() - started < 5
        assert answer["id"] == 7
        assert answer["error"]["code"] == -33003
        assert answer["error"]["data"]["outcome"] == "outcome_unknown"
        assert "inspect" in answer["error"]["data"]["nextStep"].lower()
        connector.send(plan_call(8, ["a"]))
        again = connector.read(timeout=30)
        assert again["id"] == 8, again
        # The new service could not keep the workspace: the first answer says so, once.
        notice, answer = again["result"]["content"][:2]
        assert notice["text"].startswith("Note: the Ghostlight service restarted")
        assert answer["text"].startswith("Plan recorded.")
        # The agent's tab ids from before are void: trying them is denied, but is no probe of
        # anyone's tabs, so the new workspace is not paused for it.
        for request_id, tab in enumerate((11, 12, 13, 14), start=9):
            connector.send(tool_call(request_id, "get_page_text", {"tabId": tab}))
            denied = connector.read(timeout=10)
            assert denied["result"]["isError"] is True, denied
            assert f"Tab {tab} is not in this workspace" in denied["result"]["content"][0]["text"]
        connector.send(tool_call(13, "tabs_context_mcp", {}))
        listed = connector.read(timeout=30)
        assert "Attention required" not in json.dumps(listed), listed
    finally:
        connector.close_stdin()
        connector.wait_exit(5)
        connector.terminate()


def test_squatter_is_refused_loudly_and_calls_fail_fast(own_instance: Instance) -> None:
    """A process holding the socket without the secret: stderr names it, calls get an error."""
    path = own_instance.socket_path
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    secret = own_instance.home / "instances" / own_instance.name / "bridge.secret"
    secret.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    secret.write_bytes(os.urandom(32))
    secret.chmod(0o600)
    squatter = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    squatter.bind(str(path))
    squatter.listen(8)
    stop = threading.Event()

    def serve() -> None:
        squatter.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = squatter.accept()
            except OSError:
                continue
            conn.recv(4096)
            conn.sendall(b"\x00\x00\x00\x02\xa0\xa0")  # a hello without a valid proof
            conn.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    connector = Connector(own_instance)
    try:
        started = time.monotonic()
        connector.send(STATELESS_CALL)
        answer = connector.read(timeout=10)
        assert time.monotonic() - started < 5
        assert answer["id"] == 1
        assert answer["error"]["code"] == -33001
        assert SQUATTER_MESSAGE in answer["error"]["message"]
        connector.close_stdin()
        assert connector.wait_exit(3) == 0
        assert SQUATTER_MESSAGE in connector.stderr.decode()
    finally:
        stop.set()
        thread.join()
        squatter.close()
        connector.terminate()


def test_two_connectors_same_ids_never_cross(shared_instance: Instance) -> None:
    first, second = Connector(shared_instance), Connector(shared_instance)
    try:
        _handshake(first)
        _handshake(second)
        for round_ in range(5):
            for name, connector in (("first", first), ("second", second)):
                connector.send(
                    {
                        "jsonrpc": "2.0",
                        "id": round_,
                        "method": "tools/call",
                        "params": {
                            "name": "update_plan",
                            "arguments": {"domains": [f"{name}.example"], "approach": []},
                        },
                    }
                )
        for name, connector in (("first", first), ("second", second)):
            for round_ in range(5):
                answer = connector.read()
                assert answer["id"] == round_
                assert f"{name}.example" in answer["result"]["content"][0]["text"]
    finally:
        for connector in (first, second):
            connector.close_stdin()
            assert connector.wait_exit(3) == 0
            connector.terminate()


def test_a_service_that_cannot_start_is_reported_with_its_reason(own_instance: Instance) -> None:
    """Nothing serves the instance and the service the connector starts stops at once (here a
    directory sits where its socket goes): the call's error carries the service's own reason at
    once, instead of a timeout after the whole connect budget. Nothing ran."""
    own_instance.socket_path.mkdir(mode=0o700, parents=True)
    connector = Connector(own_instance)
    try:
        connector.send(STATELESS_CALL)
        answer = connector.read(timeout=30)
        assert answer["id"] == 1
        assert answer["error"]["code"] == -33001
        message = answer["error"]["message"]
        assert "stopped as it started (exit status 1)" in message, message
        assert f"{own_instance.socket_path} is a directory" in message, message
        assert "nothing ran" in answer["error"]["data"]["nextStep"]
        connector.close_stdin()
        assert connector.wait_exit(5) == 0
    finally:
        connector.terminate()


def test_the_deepest_arguments_read_cross_the_bridge_and_keep_it(own_instance: Instance) -> None:
    """Arguments nested to the edge's limit reach the service and get its corrective error;
    one level more is refused at the edge. Either way the bridge stays up and nothing else is
    lost (a 500-level value once crashed the connector, and a 400-level one closed the bridge
    for every call on it)."""
    own_instance.start_service()
    connector = Connector(own_instance)
    limit = 256  # the edge's nesting limit (jsonrpc.MAX_NESTING)

    def nested(depth: int) -> object:
        return json.loads("[" * depth + "]" * depth)

    def call(request_id: int, domains: object) -> dict:
        connector.send(plan_call(request_id, domains))
        return connector.read(timeout=30)

    try:
        _handshake(connector)
        at_limit = call(1, nested(limit - 3))  # the line: message, params, arguments, then these
        assert at_limit["id"] == 1 and at_limit["result"]["isError"] is True, at_limit
        assert "domains" in at_limit["result"]["content"][0]["text"]
        past_limit = call(2, nested(limit - 2))
        assert past_limit == {  # JSON, but no message to take: answered to its own id
            "jsonrpc": "2.0",
            "id": 2,
            "error": {
                "code": -32600,
                "message": f"Invalid Request: the line nests arrays and objects deeper than {limit}"
                " levels",
            },
        }
        fine = call(3, ["example.com"])
        assert fine["id"] == 3 and fine["result"]["content"][0]["text"].startswith("Plan recorded.")
        connector.close_stdin()
        assert connector.wait_exit(5) == 0
        assert "Traceback" not in connector.stderr.decode()
    finally:
        connector.terminate()


def test_a_lone_surrogate_from_the_client_is_refused_and_the_connector_serves_on(
    own_instance: Instance,
) -> None:
    """Half a surrogate pair (a JSON escape, no character) in a client's name or arguments is a
    parse error for that line; the connector, its bridge and later calls carry on (it once
    crashed the connector when the name went over the bridge)."""
    own_instance.start_service()
    connector = Connector(own_instance)
    def refused(request_id: int) -> dict:
        why = "the line escapes a lone UTF-16 surrogate, which is not a character"
        error = {"code": -32600, "message": f"Invalid Request: {why}"}
        return {"jsonrpc": "2.0", "id": request_id, "error": error}

    try:
        init = INIT.replace('"name":"t"', '"name":"t\\ud800"')
        assert init != INIT
        connector.send(f'{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{init}}}')
        assert connector.read() == refused(0)
        _handshake(connector)
        connector.send(
            '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"update_plan",'
            '"arguments":{"domains":["a\\udfff"],"approach":[]}}}'
        )
        assert connector.read() == refused(1)
        connector.send(plan_call(2, ["\U0001f600"]))
        answer = connector.read(timeout=30)
        assert answer["id"] == 2 and "Domains: \U0001f600" in answer["result"]["content"][0]["text"]
        connector.close_stdin()
        assert connector.wait_exit(5) == 0
        assert "Traceback" not in connector.stderr.decode()
    finally:
        connector.terminate()


def test_a_huge_name_is_echoed_as_an_excerpt(shared_instance: Instance) -> None:
    """An unknown method or tool named with 200,000 characters: the error names its start and
    its length, not the whole name (which would land in the agent's context and the logs)."""
    connector = Connector(shared_instance)
    meta = json.loads(META)
    try:
        connector.send({"jsonrpc": "2.0", "id": 1, "method": "y" * 200_000, "params": {"_meta": meta}})
        method = connector.read(timeout=30)
        assert method["error"]["message"] == f"Method not found: {'y' * 100}... (200000 characters)"
        connector.send(
            {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
             "params": {"_meta": meta, "name": "x" * 200_000, "arguments": {}}}
        )
        tool = connector.read(timeout=30)
        assert tool["error"]["message"].startswith(f"Unknown tool '{'x' * 100}... (200000 characters)'")
        assert len(tool["error"]["message"]) < 300
    finally:
        connector.close_stdin()
        connector.wait_exit(5)
        connector.terminate()


def test_with_a_listen_open_the_next_calls_reconnect_after_the_service_died(
    own_instance: Instance,
) -> None:
    """2026-07-28 with ``subscriptions/listen`` open: the handler asks for a new connection the
    moment the old one is lost, while that connection is still ending. The ask must be kept:
    the next calls reconnect (starting the service again) and are answered."""
    meta = json.loads(META)
    own_instance.start_service()
    connector = Connector(own_instance)
    try:
        connector.send({"jsonrpc": "2.0", "id": "L", "method": "subscriptions/listen",
                        "params": {"_meta": meta, "notifications": {"toolsListChanged": True}}})
        connector.send({**STATELESS_CALL, "id": 1})
        first, _ = connector.read_until(lambda m: m.get("id") == 1, timeout=20)
        assert first["result"]["content"], first
        own_instance.kill_service()
        time.sleep(1.0)
        plan = {"domains": ["a"], "approach": []}
        params = {**STATELESS_CALL["params"], "arguments": plan}
        connector.send({**STATELESS_CALL, "id": 2, "params": params})
        again, _ = connector.read_until(lambda m: m.get("id") == 2, timeout=30)
        assert again["result"]["content"][0]["text"].startswith("Plan recorded."), again
    finally:
        connector.close_stdin()
        connector.wait_exit(5)
        connector.terminate()


def _socket_answers(instance: Instance) -> bool:
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.connect(str(instance.socket_path))
        return True
    except OSError:
        return False
    finally:
        probe.close()


def test_a_service_the_user_stopped_stays_stopped_while_a_listen_is_open(
    own_instance: Instance,
) -> None:
    """A 2026-07-28 client holding a listen reconnects when its service goes, but only to a
    service that runs: stopping the service is not undone behind the user's back. The next
    request starts one, as any first request does."""
    own_instance.kind = "real"
    own_instance.start_service()
    connector = Connector(own_instance)
    try:
        connector.send({"jsonrpc": "2.0", "id": "L", "method": "subscriptions/listen",
                        "params": {"_meta": json.loads(META), "notifications": {"toolsListChanged": True}}})
        connector.send({**STATELESS_CALL, "id": 1})
        first, _ = connector.read_until(lambda m: m.get("id") == 1, timeout=20)
        assert first["result"]["content"], first
        own_instance.stop_service()  # as `ghostlight service stop` does: SIGTERM, a clean stop
        connector.expect_quiet(6.0)  # the quiet reconnect gives up after 3 s, telling no one
        assert not _socket_answers(own_instance), "a service was started for the listen alone"
        connector.send({**STATELESS_CALL, "id": 2})
        again, _ = connector.read_until(lambda m: m.get("id") == 2, timeout=30)
        assert again["result"]["content"], again
        assert _socket_answers(own_instance)
    finally:
        connector.close_stdin()
        connector.wait_exit(5)
        connector.terminate()


def test_a_frozen_service_is_given_up_on_and_its_calls_end_as_outcome_unknown(
    own_instance: Instance,
) -> None:
    """A service that stops answering (frozen, or stopped with SIGSTOP) cannot keep its own
    60 s reply deadline, so the connector asks it, after a silence, whether it answers at all;
    when it does not, the call in flight ends as outcome unknown, and the next call is told at
    once that the service does not answer. Once it runs again, calls are served."""
    own_instance.kind = "real"
    own_instance.start_service()
    assert own_instance.service is not None
    connector = Connector(own_instance, GHOSTLIGHT_MCP_SILENCE_LIMIT="1")
    frozen = False
    try:
        _handshake(connector)
        connector.send(plan_call(1, ["a"]))
        assert connector.read(20)["result"]["content"]
        os.kill(own_instance.service.pid, signal.SIGSTOP)
        frozen = True
        connector.send(plan_call(2, ["b"]))
        lost, _ = connector.read_until(lambda m: m.get("id") == 2, timeout=20)
        assert lost["error"]["code"] == -33003, lost
        assert lost["error"]["data"]["outcome"] == "outcome_unknown"
        connector.send(plan_call(3, ["c"]))
        refused, _ = connector.read_until(lambda m: m.get("id") == 3, timeout=20)
        assert refused["error"]["code"] == -33001, refused
        assert "may be frozen" in refused["error"]["message"], refused
        os.kill(own_instance.service.pid, signal.SIGCONT)
        frozen = False
        connector.send(plan_call(4, ["d"]))
        served, _ = connector.read_until(lambda m: m.get("id") == 4, timeout=20)
        assert served["result"]["content"][0]["text"].startswith("Plan recorded."), served
    finally:
        if frozen:
            os.kill(own_instance.service.pid, signal.SIGCONT)
        connector.close_stdin()
        connector.wait_exit(5)
        connector.terminate()
