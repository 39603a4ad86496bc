"""Values no JSON holds, in every field of the messages a connector sends: byte strings, NaN and
the infinities, CBOR tags (dates, big numbers, sets, shared and cyclic references), integers
past 2^53, CBOR's undefined and simple values, nesting past 256 levels, keys that are not text.

The service answers each cleanly, never with a traceback: a call whose arguments or restriction
hold one is answered as having bad arguments (nothing reaches its handler) and its stream goes
on; anything else is a protocol violation that closes that stream alone. Either way the service
serves the next call."""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Iterator
from typing import Any

import attrs
import cbor2
import pytest
import trio
from hypothesis import given
from hypothesis import strategies as st
from service.serving import start_service  # tests/ is on sys.path (rootdir packages)

from ghostlight_trio.audit import records
from ghostlight_trio.audit.records import call_line, dispatched_line
from ghostlight_trio.engine.audit import AuditRecord
from ghostlight_trio.engine.contracts import ToolCall, ToolResult
from ghostlight_trio.service.app import assemble
from ghostlight_trio.transport.bridge import Fatal, OpenWorkspace, Outcome, Rejected, Start, Started
from ghostlight_trio.transport.bridge_codec import BridgeProtocolError
from ghostlight_trio.transport.bridge_intake import (
    CLIENT_LABEL_LIMIT,
    UnfitValues,
    decode_from_client,
)
from ghostlight_trio.transport.handshake import open_bridge
from ghostlight_trio.untrusted.jsonshape import json_problem
from ghostlight_trio.workspace import WorkspaceRegistry

from .profiles import STATS, fuzz_settings
from .strategies import json_values
from .test_hostile_frames import cbor_values


@attrs.frozen
class Raw:
    """CBOR bytes spliced into a frame as they are."""

    data: bytes


def _splice(encoder: Any, value: Raw) -> None:
    encoder.write(value.data)


def body(value: Any) -> bytes:
    return cbor2.dumps(value, default=_splice)


def _nested(levels: int) -> Raw:
    return Raw(b"\x81" * levels + b"\x01")


ODD: dict[str, Raw] = {
    "a byte string": Raw(cbor2.dumps(b"\x00\xff")),
    "NaN": Raw(cbor2.dumps(math.nan)),
    "Infinity": Raw(cbor2.dumps(math.inf)),
    "-Infinity": Raw(cbor2.dumps(-math.inf)),
    "2^70 (a bignum tag)": Raw(cbor2.dumps(2**70)),
    "-2^70 (a bignum tag)": Raw(cbor2.dumps(-(2**70))),
    "2^60 (past 2^53)": Raw(cbor2.dumps(2**60)),
    "undefined": Raw(b"\xf7"),
    "a simple value": Raw(b"\xf8\x63"),
    "a date (tag 0)": Raw(b"\xc0" + cbor2.dumps("2020-01-01T00:00:00Z")),
    "an epoch date (tag 1)": Raw(b"\xc1" + cbor2.dumps(0)),
    "an unknown tag": Raw(cbor2.dumps(cbor2.CBORTag(9999, "x"))),
    "a shareable value (tag 28)": Raw(b"\xd8\x1c" + cbor2.dumps([1])),
    "a cyclic shared reference": Raw(bytes.fromhex("d81c81d81d00")),
    "a reference to nothing (tag 29)": Raw(bytes.fromhex("d81d05")),
    "a set (tag 258)": Raw(cbor2.dumps({1, 2})),
    "a self-described map (tag 55799)": Raw(b"\xd9\xd9\xf7" + cbor2.dumps({"a": 1})),
    "a string reference (tag 25)": Raw(bytes.fromhex("d81900")),
    "a map with a byte-string key": Raw(b"\xa1\x42\x00\x01\x01"),
    "nesting 300 levels deep": _nested(300),
    "a map with an integer key": Raw(b"\xa1\x01\x01"),
    "a map with an array key": Raw(b"\xa1\x81\x01\x01"),
    "nesting 1000 levels deep": _nested(1000),
}
FRAME_BREAKING = {"a map with an integer key", "a map with an array key", "nesting 1000 levels deep"}
"""Odd enough that the frame itself does not decode (a hash-flood guard, the decoder's depth)."""

PLAN = {"domains": ["example.test"], "approach": ["read"]}
START = {
    "t": "Start",
    "sequence": 7,
    "operation": "update_plan",
    "arguments": PLAN,
    "workspace_id": None,
    "context": {"client_label": "fuzz", "wants_progress": False, "restriction": None},
}
RESTRICTION = {"schema": 1, "name": "r", "version": "1", "grants": []}


def _start_with(path: tuple[str, ...], value: Any) -> dict[str, Any]:
    frame = json.loads(json.dumps(START))
    target = frame
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return frame


TYPED_FIELDS: dict[str, dict[str, Any]] = {
    "Start.sequence": _start_with(("sequence",), None),
    "Start.operation": _start_with(("operation",), None),
    "Start.arguments": _start_with(("arguments",), None),
    "Start.workspace_id": _start_with(("workspace_id",), None),
    "Start.context": _start_with(("context",), None),
    "Start.context.client_label": _start_with(("context", "client_label"), None),
    "Start.context.wants_progress": _start_with(("context", "wants_progress"), None),
    "Start.context.restriction": _start_with(("context", "restriction"), None),
    "Start, a field of its own": _start_with(("extra",), None),
    "OpenWorkspace.sequence": {"t": "OpenWorkspace", "sequence": None},
    "OpenWorkspace.reattach": {"t": "OpenWorkspace", "sequence": 1, "reattach": None},
    "OpenWorkspace.client_label": {"t": "OpenWorkspace", "sequence": 1, "client_label": None},
    "ReleaseWorkspace.workspace_id": {"t": "ReleaseWorkspace", "workspace_id": None},
    "CatalogRequest.sequence": {"t": "CatalogRequest", "sequence": None},
    "Cancel.work_id": {"t": "Cancel", "work_id": None},
    "Cancel.reason": {"t": "Cancel", "work_id": "1.x", "reason": None},
    "StatusRequest.sequence": {"t": "StatusRequest", "sequence": None},
    "ControlCommand.command": {"t": "ControlCommand", "sequence": 1, "command": None},
    "the message name": {"t": None, "sequence": 1},
}
"""Each message a connector sends, with the field its key names set to the odd value (``None``
marks the spot)."""


def _place(frame: Any, value: Raw) -> Any:
    if isinstance(frame, dict):
        return {key: value if item is None else _place(item, value) for key, item in frame.items()}
    return frame


CALL_FIELDS = {
    "arguments, at the top": lambda odd: _start_with(("arguments",), {**PLAN, "odd": odd}),
    "arguments, nested": lambda odd: _start_with(("arguments",), {**PLAN, "domains": [{"x": [odd]}]}),
    "restriction": lambda odd: _start_with(
        ("context", "restriction"), {**RESTRICTION, "description": odd}
    ),
}
"""Fields whose values are the caller's JSON: an odd value there is that call's bad argument."""


class Recorder:
    """``update_plan`` that keeps what reached it."""

    def __init__(self) -> None:
        self.seen: list[Any] = []

    async def __call__(self, call: ToolCall) -> ToolResult:
        self.seen.append(call.arguments)
        return ToolResult.text("Plan recorded")


async def _answers(stream: Any) -> list[Any]:
    """What the service answers a frame with: a Fatal, or Started and its Outcome."""
    with trio.fail_after(5):
        first = await stream.receive()
        if isinstance(first, Started):
            return [first, await stream.receive()]
        return [first]


async def _serves_a_normal_call(stream: Any, sequence: int) -> None:
    await stream.send(Start(sequence=sequence, operation="update_plan", arguments=PLAN))
    started, outcome = await _answers(stream)
    assert isinstance(started, Started) and isinstance(outcome, Outcome), (started, outcome)
    assert outcome.kind == "ok", outcome


class Logged(logging.Handler):
    """What the service logs at WARNING and above. Its own handler, not pytest's ``caplog``:
    ``nox -s fuzz`` runs pytest without its logging plugin."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture
def failures() -> Iterator[Logged]:
    logger = logging.getLogger("ghostlight")
    logged, level = Logged(), logger.level
    logger.addHandler(logged)
    logger.setLevel(logging.WARNING)
    try:
        yield logged
    finally:
        logger.removeHandler(logged)
        logger.setLevel(level)


def _no_tracebacks(logged: Logged) -> None:
    errors = [r for r in logged.records if r.levelno >= logging.ERROR or r.exc_info]
    assert not errors, [r.getMessage() for r in errors]


async def _serve_recording(nursery: trio.Nursery, endpoints: Any) -> Recorder:
    """A service whose one tool, ``update_plan``, records what reaches it."""
    recorder = Recorder()
    await start_service(
        nursery,
        endpoints,
        build=lambda e: assemble(e, WorkspaceRegistry(), {"update_plan": recorder}, None),
    )
    return recorder


async def test_odd_values_in_every_typed_field_close_only_that_stream(endpoints, nursery, failures):
    recorder = await _serve_recording(nursery, endpoints)
    for field, frame in TYPED_FIELDS.items():
        for name, odd in ODD.items():
            stream, _ = await open_bridge(endpoints)
            await stream.send_body(body(_place(frame, odd)))
            answers = await _answers(stream)
            assert len(answers) == 1 and isinstance(answers[0], Fatal), (field, name, answers)
            assert answers[0].message.startswith(("protocol violation", "unexpected")), answers
            await stream.aclose()
    stream, _ = await open_bridge(endpoints)
    await _serves_a_normal_call(stream, 1)
    await stream.aclose()
    assert recorder.seen == [PLAN]
    _no_tracebacks(failures)
    nursery.cancel_scope.cancel()


async def test_odd_values_in_a_call_s_own_json_are_its_bad_arguments(endpoints, nursery, failures):
    recorder = await _serve_recording(nursery, endpoints)
    stream, _ = await open_bridge(endpoints)
    sequence = 0
    for field, frame_with in CALL_FIELDS.items():
        for name, odd in ODD.items():
            sequence += 1
            frame = {**frame_with(odd), "sequence": sequence}
            await stream.send_body(body(frame))
            answers = await _answers(stream)
            if name in FRAME_BREAKING:
                assert len(answers) == 1 and isinstance(answers[0], Fatal), (field, name, answers)
                await stream.aclose()
                stream, _ = await open_bridge(endpoints)
                continue
            started, outcome = answers
            assert isinstance(outcome, Outcome) and outcome.kind == "tool_error", (field, name)
            what = "restriction" if field == "restriction" else "arguments"
            assert outcome.content[0].text.startswith(f"Invalid {what} for update_plan: "), (
                field,
                name,
                outcome.content[0].text,
            )
            sequence += 1
            await _serves_a_normal_call(stream, sequence)  # the same stream goes on
    odd_and_unknown = _start_with(("operation",), "teleport") | {"arguments": {"x": ODD["NaN"]}}
    await stream.send_body(body(odd_and_unknown))
    [rejected] = await _answers(stream)
    assert isinstance(rejected, Rejected) and rejected.code == "unknown_tool", rejected
    await stream.aclose()
    assert all(json_problem(seen, where="arguments") is None for seen in recorder.seen)
    assert len(recorder.seen) == len(CALL_FIELDS) * (len(ODD) - len(FRAME_BREAKING))
    _no_tracebacks(failures)
    nursery.cancel_scope.cancel()


async def test_a_megabyte_client_label_is_cut_in_the_audit_and_status(endpoints, nursery):
    running = await start_service(nursery, endpoints)
    label = "agent\x1b[2J\u202e" + "x" * 1_000_000
    stream, _ = await open_bridge(endpoints)
    await stream.send(OpenWorkspace(sequence=1, client_label=label))
    await stream.receive()
    await stream.send_body(body(_start_with(("context", "client_label"), label)))
    started, outcome = await _answers(stream)
    assert outcome.kind == "ok"
    await stream.aclose()
    [line] = endpoints.audit_file.read_bytes().splitlines()
    assert len(line) < 2000
    record = json.loads(line)
    assert record["client"].startswith("agent\\u001b[2J\\u202exxx")
    assert len(record["client"]) == CLIENT_LABEL_LIMIT
    [workspace] = running.parts.workspaces.summaries()
    assert workspace.label == record["client"]
    nursery.cancel_scope.cancel()


# --- the decoder on its own, fuzzed ---------------------------------------------------------

odd_fragments = st.sampled_from(sorted(ODD)).map(ODD.__getitem__)
call_values = st.recursive(
    json_values
    | st.floats()
    | st.binary(max_size=8)
    | st.sampled_from(sorted(set(ODD) - FRAME_BREAKING)).map(ODD.__getitem__),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)
"""What a call's own JSON may hold that its frame still decodes with."""
odd_values = st.recursive(
    cbor_values | odd_fragments,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)


@st.composite
def client_frames(draw: st.DrawFn) -> bytes:
    """A message a connector sends: a call whose own JSON (arguments, restriction) and label
    are anything, or any message with each field kept, dropped, or set to an odd value."""
    if draw(st.booleans()):
        frame = json.loads(json.dumps(START))
        frame["arguments"] = draw(st.dictionaries(st.text(max_size=5), call_values, max_size=4))
        frame["context"] = {
            "client_label": draw(st.text(max_size=300)),
            "wants_progress": draw(st.booleans()),
            "restriction": draw(st.none() | st.dictionaries(st.text(max_size=5), call_values)),
        }
        return body(frame)
    frame = _place(draw(st.sampled_from([START, *TYPED_FIELDS.values()])), draw(odd_fragments))
    out: dict[str, Any] = {}
    for key, value in frame.items():
        choice = draw(st.integers(0, 4))
        if choice == 0:
            continue
        out[key] = draw(odd_values) if choice == 1 else value
    return body(out)


@fuzz_settings(quick=300, long=10_000)
@given(frame=client_frames())
def test_fuzz_what_the_service_decodes_is_json(frame: bytes) -> None:
    """Whatever a connector sends, the service's decoding gives a well-typed message whose
    JSON fields are JSON and whose labels are cut and escaped, refuses one call's bad
    arguments, or refuses the frame: never anything else, never odd values further."""
    STATS["client frames: examples"] += 1
    try:
        message = decode_from_client(frame)
    except UnfitValues as unfit:
        STATS["client frames: one call's bad arguments"] += 1
        assert unfit.start.arguments == {} and unfit.start.context.restriction is None
        assert unfit.problem.startswith(unfit.field)
        message = unfit.start
    except BridgeProtocolError:
        STATS["client frames: refused"] += 1
        return
    else:
        STATS["client frames: accepted"] += 1
    attrs.validate(message)
    if isinstance(message, Start):
        assert json_problem(message.arguments, where="arguments") is None
        assert json_problem(message.context.restriction, where="restriction") is None
        label = message.context.client_label
    else:
        label = getattr(message, "client_label", "")
    assert len(label) <= CLIENT_LABEL_LIMIT and "\x1b" not in label and "\n" not in label


def test_no_audit_field_is_kept_whole_past_its_limit() -> None:
    """A restriction's name and grant ids come from the client too, and reach every record of
    its calls: each text field of a record is cut, and a cut one is never cached."""
    huge = "m" * 1_000_000
    record = AuditRecord(
        time=0.0, work_id="1.x", operation="navigate", workspace=None, outcome="denied",
        reported="denied", duration=0.1, client="c" * 300, manifest=huge + "@1#abcd",
        grant=huge, rule="grant/" + huge,
    )  # fmt: skip
    for line in (call_line(record), dispatched_line(record)):
        assert len(line) < 2000
        parsed = json.loads(line)
        assert parsed["manifest"].startswith("mmm") and parsed["manifest"].endswith("characters)")
        assert len(parsed["client"]) < 300
    assert all(len(str(values)) < 100_000 for values in records._MIDDLES)
