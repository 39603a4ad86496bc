"""The official dated MCP schema as an oracle for every line the connector writes.

Every ``harness.Connector`` keeps one (so every edge test, the transcripts included, is
checked); ``check_recording`` replays a recorded conversation into one: the SDK clients'
(``test_sdk_clients.py``) and every ``McpClient`` conversation of the other tests, the
end-to-end ones and the demo's among them (``tests/conftest.py``).

``SchemaOracle`` is fed both directions of one stdio conversation, in order: what the client
wrote (to know each request's method and revision) and every line the connector wrote. Each
server line must be one compact JSON object on one UTF-8 line and valid, under JSON Schema
Draft 2020-12, against the vendored schema (``specs/schema/<revision>/schema.json``) of the
revision its request was made in:

- a response with ``result`` is a ``JSONRPCResultResponse`` whose ``result`` is the result type
  of the request's method (``RESULT_TYPES``); a result for an id with no request outstanding,
  or for a method with no result type in that revision, is a mismatch;
- a response with ``error`` is a ``JSONRPCErrorResponse``; in 2026-07-28 its ``error`` is also
  held to the typed error for its code (``ParseError``, ``InvalidParamsError``, ...) and a
  -32022 response to ``UnsupportedProtocolVersionError``;
- a notification is the notification type its method names (``NOTIFICATION_TYPES``); the
  server sends no requests.

A request's revision: ``initialize`` is 2025-11-25; ``server/discover`` and any request whose
``params._meta`` carries ``io.modelcontextprotocol/protocolVersion`` are 2026-07-28; any other
request belongs to the revision the process is pinned to (2025-11-25 while none is, as a ping
before ``initialize``). A progress notification belongs to the revision of the request whose
token it names; other notifications to the pinned revision.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match

SCHEMAS = Path(__file__).resolve().parents[2] / "specs" / "schema"
REVISIONS = ("2025-11-25", "2026-07-28")
VERSION_KEY = "io.modelcontextprotocol/protocolVersion"

RESULT_TYPES: dict[str, dict[str, str]] = {
    "2025-11-25": {
        "initialize": "InitializeResult",
        "ping": "EmptyResult",
        "tools/list": "ListToolsResult",
        "tools/call": "CallToolResult",
    },
    "2026-07-28": {
        "server/discover": "DiscoverResult",
        "tools/list": "ListToolsResult",
        "tools/call": "CallToolResult",
        "subscriptions/listen": "SubscriptionsListenResult",
    },
}
"""The result definition for each method the connector answers with a result, per revision."""

NOTIFICATION_TYPES: dict[str, dict[str, str]] = {
    "2025-11-25": {
        "notifications/progress": "ProgressNotification",
        "notifications/tools/list_changed": "ToolListChangedNotification",
        "notifications/message": "LoggingMessageNotification",
    },
    "2026-07-28": {
        "notifications/progress": "ProgressNotification",
        "notifications/tools/list_changed": "ToolListChangedNotification",
        "notifications/subscriptions/acknowledged": "SubscriptionsAcknowledgedNotification",
        "notifications/message": "LoggingMessageNotification",
    },
}

TYPED_ERRORS_2026 = {
    -32700: "ParseError",
    -32600: "InvalidRequestError",
    -32601: "MethodNotFoundError",
    -32602: "InvalidParamsError",
    -32603: "InternalError",
}
"""2026-07-28 names the standard JSON-RPC errors; an ``error`` with one of these codes is that type."""

WHOLE_RESPONSE_ERRORS_2026 = {
    -32022: "UnsupportedProtocolVersionError",
    -32021: "MissingRequiredClientCapabilityError",
    -32020: "HeaderMismatchError",
}


class SchemaMismatch(AssertionError):
    """A line the connector wrote that the official schema (or JSON-RPC framing) refuses."""


@functools.cache
def schema(revision: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((SCHEMAS / revision / "schema.json").read_text("utf-8"))
    return loaded


@functools.cache
def validator(revision: str, definition: str) -> Draft202012Validator:
    root = schema(revision)
    if definition not in root["$defs"]:
        raise KeyError(f"{revision} schema has no definition {definition}")
    document = {
        "$schema": root["$schema"],
        "$defs": root["$defs"],
        "$ref": f"#/$defs/{definition}",
    }
    return Draft202012Validator(document, format_checker=Draft202012Validator.FORMAT_CHECKER)


def check(revision: str, definition: str, value: Any, line: str) -> None:
    """Raise ``SchemaMismatch`` unless ``value`` is a valid ``definition`` of ``revision``."""
    error = best_match(validator(revision, definition).iter_errors(value))
    if error is not None:
        where = "/".join(str(part) for part in error.absolute_path) or "(root)"
        raise SchemaMismatch(
            f"not a valid {revision} {definition} at {where}: {error.message}\n  line: {line}"
        )


def _key(request_id: Any) -> str:
    return json.dumps(request_id, sort_keys=True)


def _strict_json(text: str) -> Any:
    def refuse(constant: str) -> Any:
        raise ValueError(f"{constant} is not JSON")

    return json.loads(text, parse_constant=refuse)


class SchemaOracle:
    """Both directions of one conversation in; a ``SchemaMismatch`` for a bad server line."""

    def __init__(self) -> None:
        self.pinned: str | None = None
        self.pending: dict[str, list[tuple[str, str]]] = {}
        self.tokens: dict[str, str] = {}
        self.checked = 0
        self._started = False

    def client_line(self, data: bytes) -> None:
        """Note a request the client wrote (anything else it writes is not answered with a result)."""
        if not self._started:  # one byte-order mark at the very start of the input is ignored
            self._started = True
            data = data.removeprefix("\ufeff".encode())
        for raw in data.split(b"\n"):
            try:
                message = _strict_json(raw.decode("utf-8"))
            except (ValueError, RecursionError):  # nested too deep to be a request
                continue
            if isinstance(message, dict):
                self._note_request(message)

    def _note_request(self, message: dict[str, Any]) -> None:
        method = message.get("method")
        if not isinstance(method, str) or "id" not in message:
            return
        params = message.get("params")
        meta = params.get("_meta") if isinstance(params, dict) else None
        if method == "initialize":
            revision = "2025-11-25"
        elif method == "server/discover" or (isinstance(meta, dict) and VERSION_KEY in meta):
            revision = "2026-07-28"
        else:
            revision = self.pinned or "2025-11-25"
        self.pending.setdefault(_key(message["id"]), []).append((method, revision))
        if isinstance(meta, dict) and "progressToken" in meta:
            self.tokens[_key(meta["progressToken"])] = revision

    def server_line(self, data: bytes) -> None:
        """Check one line the connector wrote (with its newline)."""
        if not data.endswith(b"\n") or b"\n" in data[:-1]:
            raise SchemaMismatch(f"not one newline-terminated line: {data!r}")
        try:
            text = data[:-1].decode("utf-8")
            message = _strict_json(text)
        except ValueError as exc:
            raise SchemaMismatch(f"not UTF-8 JSON ({exc}): {data!r}") from None
        if not isinstance(message, dict):
            raise SchemaMismatch(f"not a JSON object: {text}")
        if json.dumps(message, ensure_ascii=False, separators=(",", ":")) != text:
            raise SchemaMismatch(f"not compact JSON: {text}")
        if "method" in message:
            self._notification(message, text)
        else:
            self._response(message, text)
        self.checked += 1

    def _notification(self, message: dict[str, Any], text: str) -> None:
        if "id" in message:
            raise SchemaMismatch(f"the server sends no requests: {text}")
        method = message["method"]
        params = message.get("params")
        revision = self.pinned or "2025-11-25"
        if method == "notifications/progress" and isinstance(params, dict):
            revision = self.tokens.get(_key(params.get("progressToken")), revision)
        if method == "notifications/subscriptions/acknowledged":
            revision = "2026-07-28"
        definition = NOTIFICATION_TYPES[revision].get(method) if isinstance(method, str) else None
        if definition is None:
            raise SchemaMismatch(f"no {revision} server notification {method!r}: {text}")
        check(revision, definition, message, text)
        if revision == "2026-07-28":
            self.pinned = self.pinned or revision

    def _response(self, message: dict[str, Any], text: str) -> None:
        extra = set(message) - {"jsonrpc", "id", "result", "error"}
        if extra or ("result" in message) == ("error" in message):
            raise SchemaMismatch(f"not a JSON-RPC response (one of result/error): {text}")
        waiting = self.pending.get(_key(message["id"])) if "id" in message else None
        method, revision = waiting.pop(0) if waiting else (None, self.pinned or "2025-11-25")
        if "error" in message:
            self._error(message, revision, text)
            return
        if method is None:
            raise SchemaMismatch(f"a result for no outstanding request: {text}")
        definition = RESULT_TYPES[revision].get(method)
        if definition is None:
            raise SchemaMismatch(f"{method} has no result in {revision}: {text}")
        check(revision, "JSONRPCResultResponse", message, text)
        check(revision, definition, message["result"], text)
        if method == "initialize" or (revision == "2026-07-28" and method != "server/discover"):
            self.pinned = self.pinned or revision

    def _error(self, message: dict[str, Any], revision: str, text: str) -> None:
        check(revision, "JSONRPCErrorResponse", message, text)
        if revision != "2026-07-28":
            return
        code = message["error"]["code"]
        if code in WHOLE_RESPONSE_ERRORS_2026:
            check(revision, WHOLE_RESPONSE_ERRORS_2026[code], message, text)
        elif code in TYPED_ERRORS_2026:
            check(revision, TYPED_ERRORS_2026[code], message["error"], text)
        elif -32099 <= code <= -32000:
            raise SchemaMismatch(f"{code} is reserved and undefined in {revision}: {text}")


def check_recording(log: Path) -> int:
    """Hold every server line of a recorded conversation (``>``/``<`` + line, as
    ``wire_tap.py`` and ``McpClient`` write them) to the official schema; the number checked."""
    oracle = SchemaOracle()
    for line in log.read_bytes().splitlines(keepends=True):
        if line.startswith(b">"):
            oracle.client_line(line[1:])
        else:
            oracle.server_line(line[1:])
    return oracle.checked
