"""Hostile inputs: JSON values, JSON-RPC lines of every method with wrong types in every field,
and raw bytes."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st

json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=30),
)
json_values = st.recursive(
    json_scalars,
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=12,
)

META_2026 = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
}
INITIALIZE = {
    "protocolVersion": "2025-11-25",
    "capabilities": {},
    "clientInfo": {"name": "fuzz", "version": "1"},
}
METHOD_PARAMS: dict[str, dict[str, Any]] = {
    "initialize": INITIALIZE,
    "ping": {},
    "tools/list": {"cursor": "0"},
    "tools/call": {"name": "navigate", "arguments": {"url": "http://127.0.0.1/", "tabId": 1}},
    "resources/list": {},
    "resources/read": {"uri": "ghostlight://x"},
    "prompts/list": {},
    "prompts/get": {"name": "x"},
    "logging/setLevel": {"level": "info"},
    "completion/complete": {"ref": {"type": "ref/prompt", "name": "x"}, "argument": {}},
    "server/discover": {"_meta": META_2026},
    "subscriptions/listen": {"_meta": META_2026, "notifications": {}},
    "notifications/initialized": {},
    "notifications/cancelled": {"requestId": 1, "reason": "fuzz"},
    "no/such/method": {},
}


@st.composite
def mutated_params(draw: st.DrawFn, method: str) -> Any:
    """The method's usual params, with one field (at any depth) replaced by a random value."""
    base = json.loads(json.dumps(METHOD_PARAMS[method]))
    if draw(st.booleans()):
        base["_meta"] = dict(META_2026)
    paths: list[list[str]] = []

    def walk(node: Any, path: list[str]) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                paths.append([*path, key])
                walk(value, [*path, key])

    walk(base, [])
    choice = draw(st.integers(0, len(paths)))  # == len(paths): replace params itself
    if choice == len(paths):
        return draw(json_values)
    path = paths[choice]
    node = base
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = draw(json_values)
    return base


@st.composite
def jsonrpc_messages(draw: st.DrawFn) -> Any:
    method = draw(st.sampled_from(sorted(METHOD_PARAMS)))
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if not method.startswith("notifications/"):
        message["id"] = draw(st.integers(1, 10**6) | st.text(max_size=6))
    message["params"] = draw(mutated_params(method))
    # Now and then, break the envelope itself.
    field = draw(st.sampled_from([None, None, None, "jsonrpc", "id", "method", "params"]))
    if field is not None:
        if draw(st.booleans()):
            message.pop(field, None)
        else:
            message[field] = draw(json_values)
    return message


def _encoded(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=draw_ascii_default).encode("utf-8", "surrogatepass")


draw_ascii_default = False


deep = st.integers(1, 50_000).map(lambda n: b"[" * n + b"]" * n) | st.integers(1, 50_000).map(
    lambda n: b'{"a":' * n + b"1" + b"}" * n
)
invalid_utf8 = st.binary(min_size=1, max_size=40).map(lambda b: b'{"jsonrpc":"2.0","id":1,"method":"' + b + b'\xff\xfe"}')

@st.composite
def with_lone_surrogate(draw: st.DrawFn) -> Any:
    """A message with half a surrogate pair where a client puts text: written as a ``\\u``
    escape, valid JSON text that names no character."""
    message = draw(jsonrpc_messages())
    half = draw(st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF))
    text = draw(st.text(max_size=4)) + half + draw(st.text(max_size=4))
    place = draw(st.sampled_from(["id", "method", "param", "key"]))
    if place in ("param", "key"):
        params = message.get("params")
        params = params if isinstance(params, dict) else {}
        params[text if place == "key" else "text"] = 1 if place == "key" else text
        message["params"] = params
    else:
        message[place] = text
    return message


huge_numbers = st.tuples(
    st.sampled_from([b"1e400", b"-1e999", b"1" + b"0" * 400, b"-" + b"9" * 5000, b"1e308", b"2e-400"]),
    st.sampled_from([b"id", b"params"]),
).map(
    lambda pair: b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"computer","arguments":{"coordinate":[%s,1]}}}' % pair[0]
    if pair[1] == b"params" else b'{"jsonrpc":"2.0","id":%s,"method":"ping"}' % pair[0]
)
"""Numbers past what a double holds (and two that are not: 1e308, and 2e-400, which is 0)."""

hostile_lines = st.one_of(
    jsonrpc_messages().map(_encoded),
    huge_numbers,
    with_lone_surrogate().map(lambda message: json.dumps(message).encode("ascii")),
    st.lists(jsonrpc_messages(), min_size=0, max_size=3).map(_encoded),  # batches
    json_values.map(_encoded),
    st.binary(max_size=200),
    deep,
    invalid_utf8,
    st.text(max_size=100).map(lambda t: t.encode("utf-8", "surrogatepass")),
).map(lambda line: line.replace(b"\n", b" "))
"""One input line (no newline inside it)."""
