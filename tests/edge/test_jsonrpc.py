"""The line codec and classification, without processes."""

from __future__ import annotations

import json

from ghostlight_mcp_connector import jsonrpc
from ghostlight_mcp_connector.jsonrpc import (
    InboundResponse,
    LineSplitter,
    Malformed,
    Notification,
    OversizedLine,
    Request,
)


def test_splitter_joins_chunks_and_skips_blank_lines() -> None:
    splitter = LineSplitter()
    assert list(splitter.feed(b'{"a"')) == []
    assert list(splitter.feed(b":1}\n\n  \n{}")) == [b'{"a":1}']
    assert list(splitter.finish()) == [b"{}"]


def test_splitter_refuses_an_oversized_line_once_and_recovers() -> None:
    splitter = LineSplitter(ceiling=10)
    out = list(splitter.feed(b"x" * 8)) + list(splitter.feed(b"y" * 8 + b"\nok\n"))
    assert out == [OversizedLine(16, b"x" * 8 + b"y" * 8, b"x" * 8 + b"y" * 8), b"ok"]


def _refused(line: bytes) -> object:
    """The id the refusal of ``line`` (over a 100-byte ceiling) is answered with."""
    splitter = LineSplitter(ceiling=100)
    [oversized] = list(splitter.feed(line[:60])) + list(splitter.feed(line[60:] + b"\n"))
    item = jsonrpc.classify(oversized)
    assert isinstance(item, Malformed) and "larger than" in item.message
    return item.id


def test_an_oversized_request_is_refused_with_its_own_id_wherever_the_id_is_written() -> None:
    pad = "x" * 20_000  # past the ends kept, so the id is found only where it really is
    first = f'{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"a":"{pad}"}}}}'
    last = f'{{"method":"tools/call","params":{{"a":"{pad}","id":9}},"jsonrpc":"2.0","id":"c-1"}}'
    assert _refused(first.encode()) == 7
    assert _refused(last.encode()) == "c-1"
    # Only a top-level id counts: one inside params, or one cut off, is never taken for it.
    nested = f'{{"method":"tools/call","params":{{"a":"{pad}","id":9}}}}'
    cut = '{"jsonrpc":"2.0","id":' + "1" * 5000 + f',"params":"{pad}"}}'
    assert _refused(nested.encode()) is None
    assert _refused(cut.encode()) is None
    assert _refused(b"x" * 30_000) is None


def test_classification() -> None:
    assert jsonrpc.classify(b'{"jsonrpc":"2.0","id":1,"method":"m"}') == Request(1, "m", None)
    assert jsonrpc.classify(b'{"jsonrpc":"2.0","method":"n"}') == Notification("n", None)
    assert isinstance(jsonrpc.classify(b'{"jsonrpc":"2.0","id":1,"result":{}}'), InboundResponse)
    assert jsonrpc.classify(b"[]") == Malformed(
        -32600, "Invalid Request: batches are not supported"
    )
    assert jsonrpc.classify(b"\xff").code == -32700  # type: ignore[union-attr]
    assert jsonrpc.classify(b'{"id":1,"method":"x","jsonrpc":"2.0","params":NaN}').code == -32700  # type: ignore[union-attr]
    bad_ids = [
        b'{"jsonrpc":"2.0","id":true,"method":"m"}',
        b'{"jsonrpc":"2.0","id":1.0,"method":"m"}',
    ]
    for line in bad_ids:
        item = jsonrpc.classify(line)
        assert isinstance(item, Malformed) and item.id is None and item.code == -32600


def _classified_at_stack_depth(frames: int, line: bytes) -> object:
    """``classify`` called from ``frames`` nested calls, as from a deep caller."""
    if frames:
        return _classified_at_stack_depth(frames - 1, line)
    return jsonrpc.classify(line)


def test_nesting_has_one_fixed_limit_wherever_a_line_is_read() -> None:
    """Within the limit a deep line is classified as usual; past it, one parse error that says
    why. The answer does not depend on how deep the reader's own stack is (the parser's own
    limit does: a 900-level line read under 300 frames used to be "not valid JSON")."""
    limit = jsonrpc.MAX_NESTING
    why = f"the line nests arrays and objects deeper than {limit} levels"
    too_deep = Malformed(-32700, f"Parse error: {why}")  # no id to answer: a bare array
    for depth, expected in (
        (limit, Malformed(-32600, "Invalid Request: batches are not supported")),
        (limit + 1, too_deep),
        (900, too_deep),
        (50_000, too_deep),
    ):
        line = b"[" * depth + b"]" * depth
        assert jsonrpc.classify(line) == expected, depth
        assert _classified_at_stack_depth(300, line) == expected, depth
    # A request's own id is read, so its caller gets an answer rather than waiting for one:
    # from the parsed object, or (past the parser's own depth) from the line's ends.
    request = b'{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":%s}}'
    answered = Malformed(-32600, f"Invalid Request: {why}", 1)
    assert jsonrpc.classify(request % (b"[" * limit + b"]" * limit)) == answered  # limit + 2
    assert jsonrpc.classify(request % (b"[" * 600 + b"]" * 600)) == answered


def test_a_lone_surrogate_escape_is_refused_and_a_pair_is_read() -> None:
    """JSON can escape half a surrogate pair; that is no character, and nothing past the edge
    can carry it, so the line is refused wherever it sits. A whole pair is one character."""
    why = "the line escapes a lone UTF-16 surrogate, which is not a character"
    unanswerable = Malformed(-32700, f"Parse error: {why}")  # the id itself is half a pair
    assert jsonrpc.classify(rb'{"jsonrpc":"2.0","id":"\ud800","method":"ping"}') == unanswerable
    refused = Malformed(-32600, f"Invalid Request: {why}", 1)
    for line in (
        rb'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"\uDFFF":1}}',
        rb'{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":["x\udc00y"]}}',
        rb'{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":"\ude00\ud83d"}}',  # reversed
    ):
        assert jsonrpc.classify(line) == refused, line
    pair = rb'{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":"\ud83d\ude00"}}'
    assert jsonrpc.classify(pair) == Request(1, "m", {"a": "\U0001f600"})
    escaped_backslash = rb'{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":"\\ud800"}}'
    assert jsonrpc.classify(escaped_backslash) == Request(1, "m", {"a": "\\ud800"})


def test_numbers_past_what_a_double_holds_are_refused() -> None:
    """1e400 parses as infinity and a 400-digit integer has no double: JSON text, but no value
    that could be sent on to a browser as JSON."""
    request = b'{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":%s}}'
    for number, shown in (
        (b"1e400", "1e400"),
        (b"-1e400", "-1e400"),
        (b"1" + b"0" * 400, "100000000000... (401 characters)"),
        (b"-1" + b"0" * 5000, "-10000000000... (5002 characters)"),
    ):
        assert jsonrpc.classify(request % number) == Malformed(
            -32600, f"Invalid Request: the number {shown} is out of range", 1
        )
    fine = jsonrpc.classify(request % b"[1e308,-2.5,12345678901234567890,0]")
    assert fine == Request(1, "m", {"a": [1e308, -2.5, 12345678901234567890, 0]})


def test_encoding_is_one_compact_utf8_line() -> None:
    line = jsonrpc.encode(jsonrpc.result(1, {"text": "a\nb é \u2028"}))
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    assert json.loads(line.decode("utf-8"))["result"]["text"] == "a\nb é \u2028"
    assert b", " not in line and b": " not in line


def test_error_without_id_omits_the_member() -> None:
    assert "id" not in jsonrpc.error(None, -32700, "x")


BOM = "\ufeff"
PING = b'{"jsonrpc":"2.0","id":1,"method":"ping"}'


def test_a_byte_order_mark_at_the_very_start_of_the_stream_is_dropped() -> None:
    """RFC 8259 §8.1 lets a reader ignore one; the first line is then read as it is, however
    the reads split the mark."""
    data = BOM.encode() + PING + b"\n" + PING + b"\n"
    for size in (1, 2, 3, 4, len(data)):
        splitter = LineSplitter()
        lines = []
        for start in range(0, len(data), size):
            lines += list(splitter.feed(data[start : start + size]))
        assert lines == [PING, PING], size
        assert jsonrpc.classify(lines[0]) == Request(1, "ping", None)


def test_only_the_start_of_the_stream_loses_its_mark() -> None:
    splitter = LineSplitter()
    assert list(splitter.feed(PING + b"\n" + BOM.encode() + PING + b"\n")) == [
        PING,
        BOM.encode() + PING,
    ]
    # Bytes that only begin like a mark are kept: they are the start of the first line.
    splitter = LineSplitter()
    assert list(splitter.feed(b"\xef\xbb")) == []
    assert list(splitter.feed(b"x\n")) == [b"\xef\xbbx"]
    splitter = LineSplitter()
    assert list(splitter.feed(b"\xef")) == []
    assert list(splitter.finish()) == [b"\xef"]  # input that ended inside it still counts
    assert jsonrpc.classify(b"\xef").code == jsonrpc.PARSE_ERROR  # type: ignore[union-attr]
    # A mark and nothing else on the first line leaves nothing to answer.
    splitter = LineSplitter()
    assert list(splitter.feed(BOM.encode() + b"\n" + PING + b"\n")) == [PING]


def test_a_mark_anywhere_else_is_answered_to_the_line_id() -> None:
    """Not JSON text, but its caller must not wait: -32600 to the id when it can be read."""
    for line, request_id in (
        (BOM + '{"jsonrpc":"2.0","id":2,"method":"ping"}', 2),
        ('{"jsonrpc":"2.0",' + BOM + '"id":"two","method":"ping"}', "two"),
        ('{"jsonrpc":"2.0","id":3,"method":"ping"}' + BOM, 3),
        (BOM + '{"id":4,"x":' + "[" * 5000 + "]" * 5000 + "}", 4),  # too deep to parse
    ):
        item = jsonrpc.classify(line.encode())
        assert isinstance(item, Malformed), line
        assert item.code == jsonrpc.INVALID_REQUEST
        assert "byte-order mark (U+FEFF) outside a string" in item.message
        assert item.id == request_id
    # No id to be read: a parse error, as for any other line that is not JSON.
    for line in (BOM + "[1,2]", BOM + '{"jsonrpc":"2.0","method":"ping"', BOM + "{not json}"):
        item = jsonrpc.classify(line.encode())
        assert isinstance(item, Malformed) and item.code == jsonrpc.PARSE_ERROR and item.id is None


def test_a_mark_inside_a_string_is_a_character_like_any_other() -> None:
    line = '{"jsonrpc":"2.0","id":"a' + BOM + 'b","method":"ping","params":{"q":"\\"' + BOM + '"}}'
    assert jsonrpc.classify(line.encode()) == Request(
        "a" + BOM + "b", "ping", {"q": '"' + BOM}
    )
    # ...and it stays what it is when a mark outside a string spoils the line.
    item = jsonrpc.classify((BOM + line).encode())
    assert isinstance(item, Malformed) and item.id == "a" + BOM + "b"


def test_integer_ids_past_the_exact_range_are_refused() -> None:
    """An id a double cannot hold exactly could not be carried back to a JavaScript client."""
    ping = b'{"jsonrpc":"2.0","id":%d,"method":"ping"}'
    for inside in (2**53 - 1, -(2**53 - 1), 0):
        assert jsonrpc.classify(ping % inside) == Request(inside, "ping", None)
    for outside in (2**53, -(2**53), 10**300):
        refused = jsonrpc.classify(ping % outside)
        assert isinstance(refused, Malformed) and refused.id is None, outside
        assert (refused.code, "±(2^53 − 1)" in refused.message) == (-32600, True)
    past_a_double = jsonrpc.classify(ping % 10**400)
    assert past_a_double == Malformed(
        -32700, "Parse error: the number 100000000000... (401 characters) is out of range"
    )
    assert not jsonrpc.is_request_id(2**53) and jsonrpc.is_request_id(2**53 - 1)
