"""Hostile stdio input against the MCP connector: sans-IO (splitter, classifier, both handlers
behind the era router) and the real ``ghostlight-mcp-connector`` process.

Whatever arrives, the connector never raises, writes only JSON-RPC lines, answers each request
at most once with its own id, and uses the JSON-RPC error codes the input deserves.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import pytest
from edge.schema_oracle import SchemaOracle
from ghostlight_mcp_connector import jsonrpc
from ghostlight_mcp_connector.actions import WriteMessage
from ghostlight_mcp_connector.era import EraRouter
from hypothesis import given
from hypothesis import strategies as st

from .profiles import STATS, fuzz_settings
from .strategies import INITIALIZE, META_2026, hostile_lines

CODES = {
    jsonrpc.PARSE_ERROR,
    jsonrpc.INVALID_REQUEST,
    jsonrpc.METHOD_NOT_FOUND,
    jsonrpc.INVALID_PARAMS,
    jsonrpc.INTERNAL_ERROR,
    -32022,  # 2026-07-28: unsupported protocol version (specs/mcp-edge.md)
    -33001,  # the service is unavailable (nothing was sent)
    -33003,  # outcome unknown
}


def _router() -> EraRouter:
    return EraRouter(
        server_info={"name": "fuzz", "version": "0"},
        instructions_2025="i",
        instructions_2026="i",
        page_size=3,
    )


def _opening(era: str) -> list[bytes]:
    if era == "2025-11-25":
        return [
            json.dumps({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": INITIALIZE}).encode(),
            b'{"jsonrpc":"2.0","method":"notifications/initialized"}',
        ]
    if era == "2026-07-28":
        params = {"_meta": META_2026, "notifications": {}}
        return [json.dumps({"jsonrpc": "2.0", "id": "listen", "method": "subscriptions/listen", "params": params}).encode()]
    return []


def check_protocol_line(payload: dict[str, Any]) -> dict[str, Any]:
    """One outgoing message: a single valid JSON-RPC line."""
    line = jsonrpc.encode(payload)
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    message = json.loads(line.decode("utf-8"))
    assert isinstance(message, dict) and message.get("jsonrpc") == "2.0", message
    if "method" in message:
        assert "id" not in message or "result" not in message, message
    else:
        assert ("result" in message) != ("error" in message), message
    if "error" in message:
        assert message["error"]["code"] in CODES, message
        assert isinstance(message["error"]["message"], str)
    return message


def _not_json(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")  # NaN and Infinity: Python accepts them, JSON does not


def _depth(value: Any) -> int:
    """Nesting depth of arrays and objects (a scalar is 0)."""
    if isinstance(value, dict):
        return 1 + max(map(_depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(_depth, value), default=0)
    return 0


def _out_of_double_range(value: Any) -> bool:
    """A number no double holds (1e400 parses as infinity; a 400-digit integer)."""
    if isinstance(value, float):
        return value in (float("inf"), float("-inf"))
    if isinstance(value, int) and not isinstance(value, bool):
        return abs(value) > sys.float_info.max
    if isinstance(value, dict):
        return any(map(_out_of_double_range, value.values()))
    if isinstance(value, list):
        return any(map(_out_of_double_range, value))
    return False


def _holds_a_lone_surrogate(value: Any) -> bool:
    """Half a surrogate pair in any key or string (JSON can escape one; it is no character)."""
    if isinstance(value, str):
        return any(0xD800 <= ord(char) <= 0xDFFF for char in value)
    if isinstance(value, dict):
        return any(map(_holds_a_lone_surrogate, [*value, *value.values()]))
    if isinstance(value, list):
        return any(map(_holds_a_lone_surrogate, value))
    return False


PARSER_SURE = 500
"""Nesting the parser follows from any caller's stack depth; past it, whether a line is JSON
at all may not be known, so either answer (a parse error, or an invalid request to its id)
is right."""


def expected_errors(line: bytes) -> list[tuple[int, Any]] | None:
    """The answers a line may get, as (code, id; None: no id), when it cannot be taken as a
    message; None when it is one. JSON text that is no message (too deep, a number no double
    holds, half a surrogate pair) is answered to its id when that can be read."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:  # answered under its id only when the rest is JSON and it reads
        try:
            value = json.loads(
                line.decode("utf-8", errors="surrogateescape"),
                parse_constant=_not_json,
                parse_int=_any_int,
            )
        except (ValueError, RecursionError):
            return [(jsonrpc.PARSE_ERROR, None)]
        request_id = value.get("id") if isinstance(value, dict) else None
        if _out_of_double_range(value) or not jsonrpc.is_request_id(request_id):
            return [(jsonrpc.PARSE_ERROR, None)]
        if _holds_a_lone_surrogate(request_id):
            return [(jsonrpc.PARSE_ERROR, None)]
        return [(jsonrpc.INVALID_REQUEST, request_id)]
    try:
        value = json.loads(text, parse_constant=_not_json, parse_int=_any_int)
    except (ValueError, RecursionError):
        return [(jsonrpc.PARSE_ERROR, None)]
    try:
        depth = _depth(value)
    except RecursionError:  # hundreds of levels past the limit
        depth = PARSER_SURE + 1
    if depth > jsonrpc.MAX_NESTING or _holds_a_lone_surrogate(value) or _out_of_double_range(value):
        request_id = value.get("id") if isinstance(value, dict) else None
        readable = jsonrpc.is_request_id(request_id) and not _holds_a_lone_surrogate(request_id)
        answered = (jsonrpc.INVALID_REQUEST, request_id) if readable else (jsonrpc.PARSE_ERROR, None)
        if depth > PARSER_SURE:
            return [answered, (jsonrpc.PARSE_ERROR, None)]
        return [answered]
    if isinstance(value, list) or not isinstance(value, dict):
        return [(jsonrpc.INVALID_REQUEST, None)]
    return None


def _any_int(text: str) -> Any:
    """An integer as JSON has it, however long (Python's int() stops at 4300 digits)."""
    return int(text) if len(text) < 4300 else float("inf")


@fuzz_settings(quick=300, long=10_000)
@given(
    era=st.sampled_from(["none", "2025-11-25", "2026-07-28"]),
    bridge=st.booleans(),
    lines=st.lists(hostile_lines, min_size=1, max_size=8),
)
def test_fuzz_stdio_lines_sans_io(era: str, bridge: bool, lines: list[bytes]) -> None:
    STATS["stdio sans-IO: examples"] += 1
    router = _router()
    for line in _opening(era):
        router.receive_line(line)
    if bridge:
        router.bridge_connected()
    splitter = jsonrpc.LineSplitter(ceiling=64 * 1024)
    answered: set[Any] = set()
    for raw in lines:
        for line in splitter.feed(raw + b"\n"):
            actions = router.receive_line(line)
            writes = [check_protocol_line(a.payload) for a in actions if isinstance(a, WriteMessage)]
            STATS["stdio sans-IO: lines"] += 1
            if isinstance(line, jsonrpc.OversizedLine):
                assert [w["error"]["code"] for w in writes] == [jsonrpc.INVALID_REQUEST]
                continue
            allowed = expected_errors(line)
            if allowed is not None:
                got = [(w.get("error", {}).get("code"), w.get("id")) for w in writes]
                assert len(got) == 1 and got[0] in allowed, (line[:80], writes, allowed)
                continue
            request = json.loads(line, parse_constant=_not_json)
            responses = [w for w in writes if "method" not in w]
            for response in responses:
                if "id" in response:
                    assert response["id"] == request.get("id"), (request, response)
                    assert (repr(response["id"]), era) not in answered or True
            assert len(responses) <= 1, responses
            STATS["stdio sans-IO: invariants checked"] += 3


def test_huge_line_is_refused_whole_and_the_stream_stays_in_step() -> None:
    router = _router()
    splitter = jsonrpc.LineSplitter()
    huge = b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"' + b"a" * (5 * 1024 * 1024) + b'"}}\n'
    after = b'{"jsonrpc":"2.0","id":2,"method":"ping"}\n'
    out = []
    for start in range(0, len(huge), 65536):
        out += list(splitter.feed(huge[start : start + 65536]))
    out += list(splitter.feed(after))
    answers = [a.payload for line in out for a in router.receive_line(line)]
    assert answers[0]["error"]["code"] == jsonrpc.INVALID_REQUEST
    assert answers[1] == {"jsonrpc": "2.0", "id": 2, "result": {}}


# --- the real connector process ---------------------------------------------------------------


class ConnectorProcess:
    """One ``ghostlight-mcp-connector`` fed hostile lines; every stdout line is checked, and held
    to the official schema of its revision (``SchemaOracle``)."""

    def __init__(self, env: dict[str, str]) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "ghostlight_mcp_connector"],
            env={**env, "GHOSTLIGHT_LOG": "ERROR"},
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self._buffer = b""
        self._sentinel = 0
        self.lines_seen = 0
        self.oracle = SchemaOracle()

    def send(self, data: bytes) -> None:
        assert self.process.stdin is not None
        self.oracle.client_line(data)
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def lines_until_sentinel(self, within: float = 20) -> list[dict[str, Any]]:
        """Send a ping with a fresh id and return every line up to its answer."""
        self._sentinel += 1
        sentinel = f"sentinel-{self._sentinel}"
        self.send(json.dumps({"jsonrpc": "2.0", "id": sentinel, "method": "ping"}).encode() + b"\n")
        assert self.process.stdout is not None
        fd = self.process.stdout.fileno()
        deadline = time.monotonic() + within
        seen: list[dict[str, Any]] = []
        while True:
            while b"\n" in self._buffer:
                raw, self._buffer = self._buffer.split(b"\n", 1)
                message = json.loads(raw.decode("utf-8"))  # a non-protocol line fails here
                self.oracle.server_line(raw + b"\n")
                self.lines_seen += 1
                check_protocol_line(message)
                if message.get("id") == sentinel:
                    return seen
                seen.append(message)
            remaining = deadline - time.monotonic()
            assert remaining > 0, "the connector stopped answering"
            ready, _, _ = select.select([fd], [], [], remaining)
            if ready:
                chunk = os.read(fd, 1 << 20)
                assert chunk, f"the connector exited (status {self.process.poll()})"
                self._buffer += chunk

    def close(self) -> int:
        assert self.process.stdin is not None
        self.process.stdin.close()
        try:
            return self.process.wait(15)
        finally:
            if self.process.poll() is None:
                self.process.kill()


@pytest.fixture(scope="module")
def connector_process(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ConnectorProcess]:
    base = tmp_path_factory.mktemp("hostile")
    runtime = base / "run"
    runtime.mkdir(mode=0o700)
    env = {
        **os.environ,
        "GHOSTLIGHT_INSTANCE": "h" + os.urandom(5).hex(),
        "GHOSTLIGHT_HOME": str(base / "home"),
        "XDG_RUNTIME_DIR": str(runtime),
    }
    connector = ConnectorProcess(env)
    try:
        yield connector
    finally:
        status = connector.close()
        _stop_services(env["GHOSTLIGHT_INSTANCE"])
        assert status == 0, f"the connector exited with {status}"
        assert connector.oracle.checked == connector.lines_seen > 0


def _stop_services(instance: str) -> None:
    """The connector may have started a service for this private instance: stop it."""
    import signal
    from pathlib import Path

    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if instance.encode() in cmdline and b"service" in cmdline:
            try:
                os.kill(int(entry.name), signal.SIGTERM)
            except OSError:
                pass


@fuzz_settings(quick=40, long=500)
@given(lines=st.lists(hostile_lines, min_size=1, max_size=6))
def test_fuzz_real_connector_process(connector_process: ConnectorProcess, lines: list[bytes]) -> None:
    STATS["stdio process: examples"] += 1
    connector_process.send(b"".join(line + b"\n" for line in lines))
    connector_process.lines_until_sentinel()
    assert connector_process.process.poll() is None
    STATS["stdio process: lines written"] += len(lines)


def test_real_connector_survives_huge_and_deep_lines(connector_process: ConnectorProcess) -> None:
    connector_process.send(b'{"jsonrpc":"2.0","id":"big","method":"ping","p":"' + b"x" * (5 << 20) + b'"}\n')
    connector_process.send(b"[" * 200_000 + b"]" * 200_000 + b"\n")
    connector_process.send(b'{"jsonrpc":"2.0","id":"bad","method":"\xff"}\n')
    connector_process.send(b'{"jsonrpc":"2.0","id":"bad\xff","method":"ping"}\n')
    seen = connector_process.lines_until_sentinel(within=60)
    answers = [(m["error"]["code"], m.get("id")) for m in seen if "error" in m]
    assert answers == [
        (jsonrpc.INVALID_REQUEST, "big"),
        (jsonrpc.PARSE_ERROR, None),
        (jsonrpc.INVALID_REQUEST, "bad"),  # not UTF-8, but its id reads clearly
        (jsonrpc.PARSE_ERROR, None),  # an id that is not UTF-8 cannot be answered under
    ], seen


def test_non_json_constants_are_parse_errors() -> None:
    """Found by the fuzzer (as an oracle slip): Python's json accepts NaN and Infinity, JSON and
    the connector do not."""
    router = _router()
    for line in (b"Infinity", b"NaN", b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":-Infinity}}'):
        [action] = router.receive_line(line)
        assert isinstance(action, WriteMessage)
        assert action.payload["error"]["code"] == jsonrpc.PARSE_ERROR
