"""Sans-IO newline-delimited JSON-RPC for the MCP stdio shore.

Splits the stdin byte stream into lines under a hard ceiling, classifies each line as a
request, notification, response or framing error, and serialises outgoing messages compactly
(one line, never a raw newline, always valid UTF-8). Nothing here knows an MCP revision.
"""

from __future__ import annotations

import contextlib
import json
import math
import re
import sys
from collections.abc import Iterator
from typing import Any, Final, TypeGuard

import attrs

from ghostlight_trio.untrusted.excerpt import excerpt
from ghostlight_trio.untrusted.jsonshape import MAX_NESTING, exceeds
from ghostlight_trio.untrusted.unicode import escapes_lone_surrogate, has_lone_surrogate

LINE_CEILING: Final = 4 * 1024 * 1024
"""Longest accepted input line (bytes, without the newline); longer lines are refused whole."""

PARSE_ERROR: Final = -32700
INVALID_REQUEST: Final = -32600
METHOD_NOT_FOUND: Final = -32601
INVALID_PARAMS: Final = -32602
INTERNAL_ERROR: Final = -32603

RequestId = str | int
JsonObject = dict[str, Any]


@attrs.frozen
class Request:
    id: RequestId
    method: str
    params: JsonObject | None


@attrs.frozen
class Notification:
    method: str
    params: JsonObject | None


@attrs.frozen
class InboundResponse:
    """A response object from the client; this server sends no requests, so it is only logged."""

    id: object


@attrs.frozen
class Malformed:
    """A line that must be answered with an error; ``id`` is None when it could not be read."""

    code: int
    message: str
    id: RequestId | None = None


@attrs.frozen
class Ignored:
    """A line that gets no answer at all (for example a malformed notification)."""

    reason: str


Incoming = Request | Notification | InboundResponse | Malformed | Ignored


@attrs.frozen
class OversizedLine:
    """Marker yielded by the splitter in place of a line that exceeded the ceiling; ``head`` and
    ``tail`` are its first and last bytes, kept to find the request's id, so that its caller
    gets its answer instead of waiting for one."""

    length: int
    head: bytes = b""
    tail: bytes = b""


KEPT_ENDS: Final = 4096
"""Bytes kept from each end of an over-long line (an id is a top-level member, written
first by some clients and last by others)."""


BYTE_ORDER_MARK: Final = b"\xef\xbb\xbf"
"""UTF-8 of U+FEFF. RFC 8259 §8.1 lets a reader ignore one in front of the JSON text; some
clients' writers put one at the very start of their output."""


class LineSplitter:
    """Feed raw stdin bytes, take whole lines out; an over-long line becomes one marker.

    A byte-order mark at the very start of the stream is dropped (wherever the reads split
    it); one anywhere else stays in its line, whose classification answers it."""

    def __init__(self, *, ceiling: int = LINE_CEILING) -> None:
        self._ceiling = ceiling
        self._buffer = bytearray()
        self._discarding = 0  # > 0 while skipping the rest of an over-long line
        self._head = b""
        self._tail = b""
        self._lead: bytes | None = b""
        """The first bytes of the stream while they may still be a byte-order mark; None
        once they were decided on."""

    def feed(self, data: bytes) -> Iterator[bytes | OversizedLine]:
        if self._lead is not None:
            data = self._past_the_mark(data)
        start = 0
        while True:
            newline = data.find(b"\n", start)
            chunk = data[start:] if newline < 0 else data[start:newline]
            if self._discarding:
                self._discarding += len(chunk)
                self._tail = (self._tail + chunk)[-KEPT_ENDS:]
            else:
                self._buffer += chunk
                if len(self._buffer) > self._ceiling:
                    self._discarding = len(self._buffer)
                    self._head = bytes(self._buffer[:KEPT_ENDS])
                    self._tail = bytes(self._buffer[-KEPT_ENDS:])
                    self._buffer.clear()
            if newline < 0:
                return
            start = newline + 1
            if self._discarding:
                yield self._oversized()
            else:
                line = bytes(self._buffer)
                self._buffer.clear()
                if line.strip():
                    yield line

    def finish(self) -> Iterator[bytes | OversizedLine]:
        """At EOF: a final line without a newline still counts."""
        if self._lead:  # the stream ended inside what could have been a byte-order mark
            self._buffer += self._lead
        self._lead = None
        if self._discarding:
            yield self._oversized()
        elif self._buffer.strip():
            yield bytes(self._buffer)
        self._buffer.clear()

    def _past_the_mark(self, data: bytes) -> bytes:
        """``data`` without a byte-order mark that opens the stream; nothing while the bytes
        read so far are too few to tell."""
        assert self._lead is not None
        lead = self._lead + data
        if len(lead) < len(BYTE_ORDER_MARK) and BYTE_ORDER_MARK.startswith(lead):
            self._lead = lead
            return b""
        self._lead = None
        return lead.removeprefix(BYTE_ORDER_MARK)

    def _oversized(self) -> OversizedLine:
        line = OversizedLine(self._discarding, self._head, self._tail)
        self._discarding, self._head, self._tail = 0, b"", b""
        return line


_TOO_DEEP = f"the line nests arrays and objects deeper than {MAX_NESTING} levels"


_LONE_SURROGATE = "the line escapes a lone UTF-16 surrogate, which is not a character"


_DOUBLE_MAX = int(sys.float_info.max)
_NUMBER_SHOWN = 12


class _OutOfRange(ValueError):
    """A number past what a double holds: JSON text, but no value a browser can be sent."""


def _finite_float(text: str) -> float:
    value = float(text)
    if math.isinf(value):  # 1e400 parses as infinity, which JSON cannot even write back
        raise _OutOfRange(excerpt(text, _NUMBER_SHOWN))
    return value


def _finite_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:  # past Python's digit limit for int(): far out of range
        raise _OutOfRange(excerpt(text, _NUMBER_SHOWN)) from None
    if -_DOUBLE_MAX <= value <= _DOUBLE_MAX:
        return value
    raise _OutOfRange(excerpt(text, _NUMBER_SHOWN))


_DECODER = json.JSONDecoder()
_TRAILING_ID = re.compile(rb',\s*"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")\s*\}\s*$')
"""A last top-level member ``"id"``: one closing brace after it, so never a nested one."""


def _oversized_id(line: OversizedLine) -> RequestId | None:
    """The id of a request too long to read, from the members that fit in its ends."""
    return _id_at_the_ends(line.head, line.tail)


def _id_at_the_ends(head: bytes, tail: bytes) -> RequestId | None:
    found = _leading_id(head)
    if found is None:
        match = _TRAILING_ID.search(tail)
        if match:
            with contextlib.suppress(ValueError):
                found = json.loads(match.group(1))
    return _answerable_id(found)


def _unreadable_id(line: bytes, value: object = None) -> RequestId | None:
    """The id of a line that is JSON but cannot be taken (too deep, a number out of range, half
    a surrogate pair): its caller must get its answer, not wait for one. From the parsed
    object when there is one, else from the members at either end of the line."""
    if isinstance(value, dict):
        return _answerable_id(value.get("id"))
    return _id_at_the_ends(line[:_ID_SEARCH], line[-_ID_SEARCH:])


def _answerable_id(found: object) -> RequestId | None:
    """``found`` when an answer can carry it back (half a surrogate pair cannot be written)."""
    if not is_request_id(found) or (isinstance(found, str) and has_lone_surrogate(found)):
        return None
    return found


_ID_SEARCH = 64 * 1024


def _leading_id(head: bytes) -> object:
    """The ``id`` among the leading top-level members that are whole within ``head``."""
    text = head.decode("utf-8", errors="ignore")
    index = _skip_space(text, 0)
    if not text.startswith("{", index):
        return None
    index += 1
    while True:
        try:
            key, index = _DECODER.raw_decode(text, _skip_space(text, index))
            index = _skip_space(text, index)
            if not text.startswith(":", index):
                return None
            value, index = _DECODER.raw_decode(text, _skip_space(text, index + 1))
        except (ValueError, RecursionError):  # the member runs past what was kept, or nests
            return None  # deeper than the parser follows
        index = _skip_space(text, index)
        if not text.startswith((",", "}"), index):  # a value cut short by the end of ``head``
            return None
        if key == "id":
            return value
        if text[index] == "}":
            return None
        index += 1


def _skip_space(text: str, index: int) -> int:
    while index < len(text) and text[index] in " \t\r\n":
        index += 1
    return index


class _Number:
    """A number stood in for while only the shape of a line is read (never an id)."""


def _number(text: str) -> _Number:
    return _Number()


def _any_int(text: str) -> int | _Number:
    """An integer as JSON has it; past Python's digit limit for int(), a stand-in."""
    return int(text) if len(text) < 4300 else _Number()


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


MAX_SAFE_ID = 2**53 - 1
"""The largest integer id (in magnitude) taken: every JSON reader, a JavaScript client's too,
holds the integers within ±(2^53 − 1) exactly, so an answer carries the id back unchanged."""

_ID_OUT_OF_RANGE = (
    "Invalid Request: an integer id must lie within ±(2^53 − 1), the integers every JSON reader"
    " holds exactly"
)


def is_request_id(value: object) -> TypeGuard[RequestId]:
    """JSON-RPC ids here are strings or integers within ±(2^53 − 1); bool, float, null and
    integers a double does not hold exactly are not ids."""
    if isinstance(value, str):
        return True
    return isinstance(value, int) and not isinstance(value, bool) and abs(value) <= MAX_SAFE_ID


def classify(line: bytes | OversizedLine) -> Incoming:
    """Turn one input line into exactly one classification; never raises."""
    if isinstance(line, OversizedLine):
        return Malformed(
            INVALID_REQUEST,
            f"Invalid Request: the message is larger than {LINE_CEILING} bytes, the most read in"
            " one line; it was not read and nothing was done",
            _oversized_id(line),
        )
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        return _not_utf8(line)
    try:
        value = json.loads(
            text, parse_constant=_reject_constant, parse_float=_finite_float, parse_int=_finite_int
        )
    except RecursionError:  # past what the parser follows: whether it is JSON is not known
        return Malformed(PARSE_ERROR, f"Parse error: {_TOO_DEEP}")
    except _OutOfRange as exc:
        try:  # JSON text with a number no double holds, or not JSON at all?
            value = json.loads(
                text, parse_constant=_reject_constant, parse_float=_number, parse_int=_any_int
            )
        except (ValueError, RecursionError):
            return Malformed(PARSE_ERROR, "Parse error: line is not valid JSON")
        return _untakeable(line, f"the number {exc} is out of range", value)
    except ValueError:
        return _stray_mark(text) or Malformed(PARSE_ERROR, "Parse error: line is not valid JSON")
    if line.count(b"[") + line.count(b"{") > MAX_NESTING and exceeds(value, max_depth=MAX_NESTING):
        return _untakeable(line, _TOO_DEEP, value)
    if escapes_lone_surrogate(line, value):
        return _untakeable(line, _LONE_SURROGATE, value)
    if isinstance(value, list):
        return Malformed(INVALID_REQUEST, "Invalid Request: batches are not supported")
    if not isinstance(value, dict):
        return Malformed(INVALID_REQUEST, "Invalid Request: expected a JSON object")
    return _classify_object(value)


def _not_utf8(line: bytes) -> Malformed:
    """A line with bytes that are not UTF-8. When it is a JSON object around them and its id
    reads clearly, its caller gets the answer under that id rather than waiting for one."""
    try:  # read as every line is (no NaN, no number past a double), only for its id
        value = json.loads(
            line.decode("utf-8", errors="surrogateescape"),
            parse_constant=_reject_constant,
            parse_float=_finite_float,
            parse_int=_finite_int,
        )
    except (ValueError, RecursionError):
        value = None
    found = _answerable_id(value.get("id")) if isinstance(value, dict) else None
    if found is None:
        return Malformed(PARSE_ERROR, "Parse error: line is not valid UTF-8")
    return Malformed(
        INVALID_REQUEST,
        "Invalid Request: the line holds bytes that are not UTF-8, so it was not read and nothing"
        " was done",
        found,
    )


_MARK = "\ufeff"
_STRING_OR_MARK = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|\ufeff')
_STRAY_MARK = (
    "the line has a byte-order mark (U+FEFF) outside a string, which JSON text cannot hold"
    " (one is ignored only at the very start of the input)"
)


def _stray_mark(text: str) -> Malformed | None:
    """The answer to a line that would be JSON text but for byte-order marks between its tokens
    (one at the start of a later line, say): its caller gets it to its id when the id can be
    read. None when that is not what is wrong with the line. A mark inside a string is a
    character like any other and stays what it is."""
    if _MARK not in text:
        return None
    cleaned = _STRING_OR_MARK.sub(lambda found: " " if found[0] == _MARK else found[0], text)
    if cleaned == text:
        return None
    value: object = None
    try:
        value = json.loads(
            cleaned, parse_constant=_reject_constant, parse_float=_number, parse_int=_any_int
        )
    except RecursionError:  # too deep to parse: the id may still be at one end of the line
        pass
    except ValueError:
        return None
    return _untakeable(cleaned.encode(), _STRAY_MARK, value)


def _untakeable(line: bytes, why: str, value: object = None) -> Malformed:
    """JSON text that cannot be taken as a message: answered to its id when one can be read
    (an invalid request), else as unreadable (a parse error, which has no id to answer)."""
    request_id = _unreadable_id(line, value)
    if request_id is None:
        return Malformed(PARSE_ERROR, f"Parse error: {why}")
    return Malformed(INVALID_REQUEST, f"Invalid Request: {why}", request_id)


def _method_problem(obj: JsonObject) -> str:
    if "method" not in obj:
        return "Invalid Request: missing method"
    return "Invalid Request: method must be a string"


def _classify_object(obj: JsonObject) -> Incoming:
    has_id = "id" in obj
    raw_id = obj.get("id")
    method = obj.get("method")
    if "method" not in obj and ("result" in obj or "error" in obj):
        return InboundResponse(raw_id)
    if not has_id:
        if isinstance(method, str):
            params = obj.get("params")
            if obj.get("jsonrpc") != "2.0" or (params is not None and not isinstance(params, dict)):
                return Ignored(f"malformed notification {method!r}")
            return Notification(method, params)
        return Malformed(INVALID_REQUEST, _method_problem(obj))
    if not is_request_id(raw_id):
        if isinstance(raw_id, int) and not isinstance(raw_id, bool):
            return Malformed(INVALID_REQUEST, _ID_OUT_OF_RANGE)
        return Malformed(INVALID_REQUEST, "Invalid Request: id must be a string or an integer")
    request_id: RequestId = raw_id
    if obj.get("jsonrpc") != "2.0":
        return Malformed(INVALID_REQUEST, 'Invalid Request: jsonrpc must be "2.0"', request_id)
    if not isinstance(method, str):
        return Malformed(INVALID_REQUEST, _method_problem(obj), request_id)
    params = obj.get("params")
    if params is not None and not isinstance(params, dict):
        return Malformed(INVALID_REQUEST, "Invalid Request: params must be an object", request_id)
    return Request(request_id, method, params)


# --- outgoing ------------------------------------------------------------------------------


def encode(message: JsonObject) -> bytes:
    """One compact JSON line. json.dumps escapes control characters, so no raw newline leaks."""
    text = json.dumps(message, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    # Lines with lone surrogates are refused when read (``classify``), but guard the output anyway.
    return text.encode("utf-8", errors="backslashreplace") + b"\n"


def result(request_id: RequestId, value: JsonObject) -> JsonObject:
    return {"jsonrpc": "2.0", "id": request_id, "result": value}


def error(request_id: RequestId | None, code: int, message: str, data: object = None) -> JsonObject:
    """An error response; the id is omitted (not null) when it could not be read."""
    body: JsonObject = {"code": code, "message": message}
    if data is not None:
        body["data"] = data
    response: JsonObject = {"jsonrpc": "2.0"}
    if request_id is not None:
        response["id"] = request_id
    response["error"] = body
    return response


def notification(method: str, params: JsonObject | None = None) -> JsonObject:
    message: JsonObject = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        message["params"] = params
    return message


def malformed_response(item: Malformed) -> JsonObject:
    return error(item.id, item.code, item.message)
