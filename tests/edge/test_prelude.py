"""The first request answered before the runtime loads: over real pipes, then a real process."""

from __future__ import annotations

import json
import os
import signal

from ghostlight_mcp_connector.actions import ConnectBridge
from ghostlight_mcp_connector.jsonrpc import LineSplitter
from ghostlight_mcp_connector.prelude import SHUTDOWN_SIGNALS, Handover, answer_first_lines

from .harness import Connector, Instance
from .test_handlers import router

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}},
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
LIST = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}


def _line(message: dict) -> bytes:
    return json.dumps(message).encode() + b"\n"


def _pipes() -> tuple[int, int, int, int]:
    stdin_r, stdin_w = os.pipe()
    stdout_r, stdout_w = os.pipe()
    return stdin_r, stdin_w, stdout_r, stdout_w


def test_initialize_is_answered_and_the_rest_is_handed_over_in_order() -> None:
    stdin_r, stdin_w, stdout_r, stdout_w = _pipes()
    r = router()
    tail = _line(LIST)
    os.write(stdin_w, _line(INITIALIZE) + _line(INITIALIZED) + tail[:10])
    handover = answer_first_lines(r, stdin=stdin_r, stdout=stdout_w, wait=5)
    answer = json.loads(os.read(stdout_r, 65536))
    assert answer["id"] == 1 and answer["result"]["protocolVersion"] == "2025-11-25"
    assert r.era == "2025-11-25"
    assert handover.pending == [ConnectBridge()]  # the workspace opens once the runtime runs
    assert not handover.at_eof
    # The partial third line stays in the splitter and completes with the next read.
    assert list(handover.splitter.feed(tail[10:])) == [tail.rstrip(b"\n")]


def test_nothing_arriving_hands_the_reading_over_untouched() -> None:
    stdin_r, _stdin_w, _stdout_r, stdout_w = _pipes()
    r = router()
    handover = answer_first_lines(r, stdin=stdin_r, stdout=stdout_w, wait=0.01)
    assert handover.pending == [] and not handover.at_eof and r.era == "unpinned"


def test_end_of_input_is_reported_and_a_last_line_without_newline_counts() -> None:
    stdin_r, stdin_w, stdout_r, stdout_w = _pipes()
    r = router()
    os.write(stdin_w, b'{"jsonrpc":"2.0","id":7,"method":"ping"}')
    os.close(stdin_w)
    handover = answer_first_lines(r, stdin=stdin_r, stdout=stdout_w, wait=5)
    assert handover.at_eof
    assert json.loads(os.read(stdout_r, 65536)) == {"jsonrpc": "2.0", "id": 7, "result": {}}


def test_malformed_first_line_gets_its_error_and_the_process_keeps_serving(
    shared_instance: Instance,
) -> None:
    connector = Connector(shared_instance)
    try:
        connector.send_raw(b"{not json\n")
        assert connector.read()["error"]["code"] == -32700
        connector.send(INITIALIZE)
        assert connector.read()["result"]["protocolVersion"] == "2025-11-25"
    finally:
        connector.terminate()


def test_a_burst_of_first_lines_is_served_across_the_handover(shared_instance: Instance) -> None:
    """initialize, initialized and tools/list in one write: the first is answered before the
    runtime loads, the list after it, with the bridge the prelude asked for."""
    connector = Connector(shared_instance)
    try:
        connector.send_raw(_line(INITIALIZE) + _line(INITIALIZED) + _line(LIST))
        assert connector.read()["id"] == 1
        listed = connector.read()
        assert listed["id"] == 2 and {t["name"] for t in listed["result"]["tools"]} >= {"update_plan"}
        connector.process.stdin.close()  # type: ignore[union-attr]
        assert connector.process.wait(timeout=10) == 0
    finally:
        connector.terminate()


def test_a_shutdown_signal_before_the_runtime_is_remembered_not_fatal() -> None:
    handover = Handover(LineSplitter())
    saved = {signum: signal.getsignal(signum) for signum in SHUTDOWN_SIGNALS}
    try:
        handover.capture_signals()
        os.kill(os.getpid(), signal.SIGTERM)
        assert handover.signals == [signal.SIGTERM]
        stdin_r, stdin_w, _stdout_r, stdout_w = _pipes()
        os.write(stdin_w, _line(INITIALIZE))
        # A signal already taken: the prelude stops reading and hands everything over.
        answer_first_lines(router(), stdin=stdin_r, stdout=stdout_w, wait=5, handover=handover)
        assert list(handover.splitter.finish()) == []
        assert os.read(stdin_r, 65536) == _line(INITIALIZE)  # left for the runtime, unread
    finally:
        for signum, handler in saved.items():
            signal.signal(signum, handler)


def test_terminated_right_after_its_first_answer_it_still_closes_gracefully(
    shared_instance: Instance,
) -> None:
    """SIGTERM while the runtime may still be loading: the open listen gets its closure."""
    connector = Connector(shared_instance)
    try:
        meta = {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
        }
        listen = {
            "jsonrpc": "2.0", "id": "L1", "method": "subscriptions/listen",
            "params": {"_meta": meta, "notifications": {"toolsListChanged": True}},
        }
        connector.send(listen)
        assert connector.read()["method"] == "notifications/subscriptions/acknowledged"
        connector.process.send_signal(signal.SIGTERM)
        closure = connector.read()
        assert closure["id"] == "L1" and closure["result"]["resultType"] == "complete"
        assert connector.process.wait(timeout=10) == 0
    finally:
        connector.terminate()
