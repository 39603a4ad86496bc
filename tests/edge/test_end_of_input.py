"""stdin EOF with requests still unanswered: they are answered before the process exits.

A script or CI health check pipes its requests in and closes stdin at once (``printf ... |
ghostlight-mcp-connector``); the connector keeps serving until each request read has its
answer, for at most a grace period, after which what is left gets an honest error. SIGTERM
during that grace still ends the process at once, and a client that closes stdin with nothing
outstanding sees it exit as fast as ever.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from typing import Any

from ghostlight_trio.transport.bridge import Started

from .harness import INIT, META, PYTHON, Connector, Instance
from .test_handlers import M, feed, ready_2025_11_25, router, sent, tools_call, written

PATIENCE = 60.0
"""Seconds before a stuck connector is given up on (a bound, not a measurement)."""
GRACE = "1"
"""``GHOSTLIGHT_MCP_EOF_GRACE`` for the cases that outlast it."""
INITIALIZE = f'{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{INIT}}}'
INITIALIZED = '{"jsonrpc":"2.0","method":"notifications/initialized"}'


def plan_call(request_id: int, domain: str, meta: dict[str, Any] | None = None) -> str:
    params: dict[str, Any] = {
        "name": "update_plan",
        "arguments": {"domains": [domain], "approach": []},
    }
    if meta is not None:
        params["_meta"] = meta
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params})


def line_2026_07_28(request_id: int | str, method: str, **params: Any) -> str:
    return json.dumps(
        {
            "jsonrpc": "2.0",
            "id": request_id,
            "method": method,
            "params": {"_meta": json.loads(META), **params},
        }
    )


def pipe(instance: Instance, lines: list[str], **env: str) -> subprocess.CompletedProcess[bytes]:
    """As ``printf '...' | ghostlight-mcp-connector``: every line, then EOF, in one go."""
    return subprocess.run(
        instance.connector_command(),
        input="".join(line + "\n" for line in lines).encode(),
        capture_output=True,
        env=dict(instance.env, **env),
        timeout=PATIENCE,
    )


def answers(done: subprocess.CompletedProcess[bytes]) -> dict[Any, dict[str, Any]]:
    """The responses on stdout by id (notifications left out)."""
    messages = [json.loads(line) for line in done.stdout.splitlines()]
    return {m["id"]: m for m in messages if "id" in m}


def handshake(connector: Connector) -> None:
    connector.send(INITIALIZE)
    assert connector.read()["result"]["protocolVersion"] == "2025-11-25"
    connector.send(INITIALIZED)


def frozen_after_one_call(instance: Instance, **env: str) -> Connector:
    """A 2025-11-25 connector whose first call was answered (bridge up, workspace open), then
    its service frozen (SIGSTOP): what it sends from now on is never answered."""
    assert instance.service is not None
    connector = Connector(instance, **env)
    handshake(connector)
    connector.send(plan_call(1, "a.example"))
    assert connector.read(timeout=30)["id"] == 1
    os.kill(instance.service.pid, signal.SIGSTOP)
    return connector


def thaw(instance: Instance) -> None:
    if instance.service is not None and instance.service.poll() is None:
        os.kill(instance.service.pid, signal.SIGCONT)


def test_a_2025_11_25_call_piped_before_eof_is_answered(shared_instance: Instance) -> None:
    done = pipe(shared_instance, [INITIALIZE, INITIALIZED, plan_call(1, "a.example")])
    stderr = done.stderr.decode(errors="replace")
    assert done.returncode == 0, stderr
    got = answers(done)
    assert got[0]["result"]["protocolVersion"] == "2025-11-25"
    assert got[1]["result"]["content"][0]["text"].startswith("Plan recorded."), got[1]
    assert "stdin closed with 1 request(s) still unanswered" in stderr, stderr
    assert "Traceback" not in stderr, stderr


def test_2026_07_28_requests_piped_before_eof_are_answered_starting_the_service(
    own_instance: Instance,
) -> None:
    """No service runs: the list and the call need one, so it is started as usual; the open
    listen gets its graceful closure."""
    listen = line_2026_07_28("L", "subscriptions/listen", notifications={"toolsListChanged": True})
    lines = [listen, line_2026_07_28(1, "tools/list"), plan_call(2, "b.example", json.loads(META))]
    done = pipe(own_instance, lines)
    stderr = done.stderr.decode(errors="replace")
    assert done.returncode == 0, stderr
    got = answers(done)
    assert got["L"]["result"] == {
        "resultType": "complete",
        "_meta": {"io.modelcontextprotocol/subscriptionId": "L"},
    }
    assert {t["name"] for t in got[1]["result"]["tools"]} >= {"update_plan"}, got[1]
    call = got[2]["result"]
    assert call["resultType"] == "complete", call
    assert call["content"][0]["text"].startswith("Plan recorded."), call
    assert "stdin closed with 2 request(s) still unanswered" in stderr, stderr
    assert "started the Ghostlight service" in stderr, stderr


def test_a_sent_call_unanswered_within_the_grace_ends_as_outcome_unknown(
    own_instance: Instance,
) -> None:
    own_instance.start_service()
    connector = frozen_after_one_call(own_instance, GHOSTLIGHT_MCP_EOF_GRACE=GRACE)
    try:
        connector.send(plan_call(2, "b.example"))
        connector.close_stdin()
        closed = time.monotonic()
        answer = connector.read(timeout=PATIENCE)
        assert connector.wait_exit(PATIENCE) == 0
        waited = time.monotonic() - closed
    finally:
        thaw(own_instance)
        connector.terminate()
    assert answer["id"] == 2, answer
    error = answer["error"]
    assert error["code"] == -33003, error
    assert error["message"] == (
        "Outcome unknown: stdin closed and 1 s passed before the call answered; it may have run."
    )
    assert error["data"]["outcome"] == "outcome_unknown"
    assert 1.0 <= waited < 10.0, waited
    stderr = connector.stderr.decode(errors="replace")
    assert "stdin closed with 1 request(s) still unanswered" in stderr, stderr


def test_a_call_not_sent_within_the_grace_is_answered_not_sent(own_instance: Instance) -> None:
    """The service is frozen before the connector reaches it: the call never left, so it is
    the "nothing ran, safe to retry" error, to its own id."""
    own_instance.start_service()
    assert own_instance.service is not None
    os.kill(own_instance.service.pid, signal.SIGSTOP)
    try:
        done = pipe(
            own_instance,
            [plan_call(7, "c.example", json.loads(META))],
            GHOSTLIGHT_MCP_EOF_GRACE=GRACE,
        )
    finally:
        thaw(own_instance)
    stderr = done.stderr.decode(errors="replace")
    assert done.returncode == 0, stderr
    [answer] = answers(done).values()
    assert answer["id"] == 7, answer
    error = answer["error"]
    assert error["code"] == -33001, error
    assert error["message"] == (
        "Ghostlight service unavailable: stdin closed and 1 s passed before the call was sent"
    )
    assert "nothing ran" in error["data"]["nextStep"]


def test_sigterm_during_the_grace_ends_at_once_with_honest_errors(own_instance: Instance) -> None:
    own_instance.start_service()
    connector = frozen_after_one_call(own_instance)  # the default grace: far longer than this
    try:
        connector.send(plan_call(2, "b.example"))
        connector.close_stdin()
        deadline = time.monotonic() + 15
        while b"still unanswered" not in connector.stderr and time.monotonic() < deadline:
            time.sleep(0.05)
        stopped = time.monotonic()
        connector.process.send_signal(signal.SIGTERM)
        answer = connector.read(timeout=PATIENCE)
        assert connector.wait_exit(PATIENCE) == 0
        took = time.monotonic() - stopped
    finally:
        thaw(own_instance)
        connector.terminate()
    assert answer["id"] == 2 and answer["error"]["code"] == -33003, answer
    assert answer["error"]["message"].startswith(
        f"Outcome unknown: the connector was stopped (signal {int(signal.SIGTERM)})"
    ), answer
    assert took < 3.0, took
    assert "Traceback" not in connector.stderr.decode(errors="replace")


def test_with_nothing_outstanding_eof_exits_at_once(shared_instance: Instance) -> None:
    connector = Connector(shared_instance)
    try:
        handshake(connector)
        connector.send(plan_call(1, "a.example"))
        assert connector.read(timeout=30)["id"] == 1
        connector.close_stdin()
        closed = time.monotonic()
        assert connector.wait_exit(PATIENCE) == 0
        took = time.monotonic() - closed
    finally:
        connector.terminate()
    assert took < 2.0, took
    assert "stdin closed; shutting down" in connector.stderr.decode(errors="replace")


def test_the_grace_is_read_from_the_environment_leniently() -> None:
    """A bad value falls back to the default rather than stop the connector."""
    script = "from ghostlight_mcp_connector.runtime import eof_grace; print(eof_grace())"
    for value, expected in (("2.5", "2.5"), ("0", "60.0"), ("soon", "60.0"), ("inf", "60.0")):
        env = dict(os.environ, GHOSTLIGHT_MCP_EOF_GRACE=value)
        shown = subprocess.run(
            [PYTHON, "-c", script], env=env, capture_output=True, text=True, check=True
        )
        assert shown.stdout.strip() == expected, value


# --- sans-IO: what is owed, and what giving up says -------------------------------------------


def test_owed_counts_only_requests_that_still_await_an_answer() -> None:
    r, _ = ready_2025_11_25()
    start = sent(feed(r, tools_call(1, {"name": "x"})))[0]
    feed(r, tools_call(2, {"name": "y"}))
    assert r.owed() == 2
    feed(r, {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2}})
    assert r.owed() == 1  # a cancelled call is owed no answer
    r.receive_bridge(Started(start.sequence, "w1"))
    [answer] = written(r.give_up("stdin closed and 5 s passed"))
    assert answer["id"] == 1 and answer["error"]["code"] == -33003
    assert r.owed() == 0 and written(r.give_up("again")) == []


def test_giving_up_says_not_sent_for_what_never_left() -> None:
    r = router()
    feed(r, tools_call(1, {"_meta": M, "name": "x"}))  # connecting: held, not sent
    feed(r, {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta": M}})
    assert r.owed() == 2
    call, listing = written(r.give_up("the connector was stopped"))
    assert call["id"] == 1 and call["error"]["code"] == -33001
    assert "before the call was sent" in call["error"]["message"]
    assert listing["id"] == 2 and listing["error"]["code"] == -33001
    assert "before the tool list arrived" in listing["error"]["message"]


def test_a_client_that_closes_both_pipes_mid_call_is_gone_at_once(own_instance: Instance) -> None:
    """Closing stdout as well as stdin is a client that left (or died): nothing can read an
    answer, so the connector gives its calls up now (which cancels them at the service) rather
    than keeping them running for the whole grace."""
    own_instance.start_service()
    assert own_instance.service is not None
    process = subprocess.Popen(
        own_instance.connector_command(),
        env=own_instance.env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdin is not None and process.stdout is not None
    try:
        for line in (INITIALIZE, INITIALIZED, plan_call(1, "a.example")):
            process.stdin.write(line.encode() + b"\n")
            process.stdin.flush()
        assert json.loads(process.stdout.readline())["id"] == 0
        assert json.loads(process.stdout.readline())["id"] == 1
        os.kill(own_instance.service.pid, signal.SIGSTOP)  # call 2 is never answered
        process.stdin.write(plan_call(2, "b.example").encode() + b"\n")
        process.stdin.close()
        process.stdout.close()
        closed = time.monotonic()
        assert process.wait(timeout=PATIENCE) == 0
        took = time.monotonic() - closed
    finally:
        thaw(own_instance)
        if process.poll() is None:
            process.kill()
            process.wait()
    stderr = process.stderr.read().decode(errors="replace") if process.stderr else ""
    assert "the client is gone" in stderr, stderr
    assert took < 15.0, took  # a bound against waiting out the default 60 s grace
    assert "Traceback" not in stderr, stderr
