"""The schema oracle accepts what the official schemas allow and refuses a wrong line."""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import pytest
import trio
from jsonschema import Draft202012Validator

from ghostlight_trio.cli.mcp_client import WIRE_LOG_ENV, McpClient

from .harness import INIT, META
from .schema_oracle import (
    NOTIFICATION_TYPES,
    RESULT_TYPES,
    REVISIONS,
    SCHEMAS,
    SchemaMismatch,
    SchemaOracle,
    check_recording,
    schema,
)

DIGESTS = {
    "2025-11-25": "268a5f82ba70fd7e4b6dc4aa1e64f116f74b4d0edcb69dc046829c79dd4e97e7",
    "2026-07-28": "ef70b61f99b6d2e5e3b46863822eab08dff6a45bedc7a08914e0e5b133f40203",
}
INFO = '{"name":"ghostlight","version":"1"}'
SERVER_INFO = '{"io.modelcontextprotocol/serverInfo":' + INFO + "}"


def _line(text: str) -> bytes:
    return text.encode() + b"\n"


def _conversation(*lines: tuple[str, str]) -> SchemaOracle:
    oracle = SchemaOracle()
    for direction, text in lines:
        if direction == ">":
            oracle.client_line(_line(text))
        else:
            oracle.server_line(_line(text))
    return oracle


HANDSHAKE = (
    (">", '{"jsonrpc":"2.0","id":0,"method":"initialize","params":' + INIT + "}"),
    (
        "<",
        '{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25",'
        '"capabilities":{"tools":{"listChanged":true}},"serverInfo":' + INFO + "}}",
    ),
)


@pytest.mark.parametrize("revision", REVISIONS)
def test_vendored_schema_is_the_published_one(revision: str) -> None:
    data = (SCHEMAS / revision / "schema.json").read_bytes()
    assert hashlib.sha256(data).hexdigest() == DIGESTS[revision]
    Draft202012Validator.check_schema(schema(revision))


@pytest.mark.parametrize("revision", REVISIONS)
def test_every_mapped_definition_exists(revision: str) -> None:
    names = [*RESULT_TYPES[revision].values(), *NOTIFICATION_TYPES[revision].values()]
    assert all(name in schema(revision)["$defs"] for name in names)


def test_valid_lines_of_both_revisions_pass() -> None:
    oracle = _conversation(
        *HANDSHAKE,
        (">", '{"jsonrpc":"2.0","id":1,"method":"tools/list"}'),
        (
            "<",
            '{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","inputSchema":{"type":"object"}}]}}',
        ),
        ("<", '{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}'),
        ("<", '{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}'),
    )
    assert oracle.checked == 4
    modern = _conversation(
        (
            ">",
            '{"jsonrpc":"2.0","id":"d","method":"server/discover","params":{"_meta":' + META + "}}",
        ),
        (
            "<",
            '{"jsonrpc":"2.0","id":"d","result":{"resultType":"complete","supportedVersions":'
            '["2026-07-28"],"capabilities":{},"ttlMs":0,"cacheScope":"public","_meta":'
            + SERVER_INFO
            + "}}",
        ),
        (
            ">",
            '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"x","_meta":'
            + META
            + "}}",
        ),
        ("<", '{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","content":[]}}'),
    )
    assert modern.pinned == "2026-07-28"


WRONG = {
    "initialize result without serverInfo": (
        HANDSHAKE[0],
        (
            "<",
            '{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{}}}',
        ),
    ),
    "2026 list without resultType": (
        (">", '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":' + META + "}}"),
        ("<", '{"jsonrpc":"2.0","id":1,"result":{"tools":[],"ttlMs":0,"cacheScope":"public"}}'),
    ),
    "2026 list with a negative ttl": (
        (">", '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":' + META + "}}"),
        (
            "<",
            '{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[],"ttlMs":-1,"cacheScope":"public"}}',
        ),
    ),
    "tool without inputSchema": (
        *HANDSHAKE,
        (">", '{"jsonrpc":"2.0","id":1,"method":"tools/list"}'),
        ("<", '{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a"}]}}'),
    ),
    "call result content not a list": (
        *HANDSHAKE,
        (">", '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}}'),
        ("<", '{"jsonrpc":"2.0","id":1,"result":{"content":"text"}}'),
    ),
    "result for no request": (("<", '{"jsonrpc":"2.0","id":9,"result":{}}'),),
    "result for a method without one": (
        (">", '{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":' + META + "}}"),
        ("<", '{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete"}}'),
    ),
    "null id": (("<", '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"x"}}'),),
    "error code not an integer": (
        ("<", '{"jsonrpc":"2.0","error":{"code":"-32700","message":"x"}}'),
    ),
    "2026 -32022 without data": (
        (">", '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":' + META + "}}"),
        ("<", '{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"x"}}'),
    ),
    "2026 reserved code": (
        (">", '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":' + META + "}}"),
        ("<", '{"jsonrpc":"2.0","id":1,"error":{"code":-32050,"message":"x"}}'),
    ),
    "both result and error": (
        *HANDSHAKE,
        (">", '{"jsonrpc":"2.0","id":1,"method":"ping"}'),
        ("<", '{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":-1,"message":"x"}}'),
    ),
    "wrong jsonrpc": (
        *HANDSHAKE,
        (">", '{"jsonrpc":"2.0","id":1,"method":"ping"}'),
        ("<", '{"jsonrpc":"1.0","id":1,"result":{}}'),
    ),
    "unknown notification": (("<", '{"jsonrpc":"2.0","method":"notifications/whatever"}'),),
    "acknowledged without params": (
        ("<", '{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged"}'),
    ),
    "a server request": (("<", '{"jsonrpc":"2.0","id":1,"method":"ping"}'),),
    "not compact": (
        *HANDSHAKE,
        (">", '{"jsonrpc":"2.0","id":1,"method":"ping"}'),
        ("<", '{"jsonrpc": "2.0","id":1,"result":{}}'),
    ),
    "not JSON": (("<", "hello"),),
    "NaN": (("<", '{"jsonrpc":"2.0","error":{"code":-32700,"message":"x","data":NaN}}'),),
}


@pytest.mark.parametrize("name", sorted(WRONG))
def test_a_wrong_line_is_refused(name: str) -> None:
    *before, last = WRONG[name]
    oracle = _conversation(*before)
    with pytest.raises(SchemaMismatch):
        oracle.server_line(_line(last[1]))


def test_a_line_must_end_with_one_newline() -> None:
    oracle = _conversation(*HANDSHAKE)
    oracle.client_line(b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n')
    with pytest.raises(SchemaMismatch):
        oracle.server_line(b'{"jsonrpc":"2.0","id":1,"result":{}}')


def test_progress_takes_its_request_revision() -> None:
    oracle = _conversation(*HANDSHAKE)
    call: dict[str, Any] = {
        "jsonrpc": "2.0",
        "id": 3,
        "method": "tools/call",
        "params": {"name": "x", "_meta": {"progressToken": "p"}},
    }
    oracle.client_line(_line(json.dumps(call)))
    oracle.server_line(
        _line(
            '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":1}}'
        )
    )
    with pytest.raises(SchemaMismatch):
        oracle.server_line(
            _line('{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":2}}')
        )


_SERVER = (
    "import sys; sys.stdin.readline(); sys.stdout.write(sys.argv[1] + '\\n'); sys.stdout.flush();"
    " sys.stdin.read()"
)


@pytest.mark.parametrize(
    ("server_info", "fits"),
    [(',"serverInfo":{"name":"s","version":"1"}', True), ("", False)],
    ids=["whole", "no serverInfo"],
)
def test_a_recorded_mcp_client_conversation_is_held_to_the_schema(
    server_info: str, fits: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What ``tests/conftest.py`` does with every ``McpClient`` conversation (the e2e tests', the
    demo's): the recording is replayed into the oracle, and a line off the schema fails."""
    monkeypatch.setenv(WIRE_LOG_ENV, str(tmp_path))
    answer = (
        '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{}'
        + server_info
        + "}}"
    )

    async def converse() -> None:
        async with await McpClient.spawn([sys.executable, "-c", _SERVER, answer]):
            pass

    trio.run(converse)
    [log] = tmp_path.glob("*.wire")
    if fits:
        assert check_recording(log) == 1
    else:
        with pytest.raises(SchemaMismatch, match="serverInfo"):
            check_recording(log)
