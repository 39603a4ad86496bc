"""Every bridge message survives a round trip; broken frames give a clean protocol error."""

from __future__ import annotations

import attrs
import cbor2
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ghostlight_trio.transport import bridge
from ghostlight_trio.transport.bridge import MESSAGE_TYPES
from ghostlight_trio.transport.bridge_codec import (
    BridgeProtocolError,
    decode_message,
    encode_message,
)
from ghostlight_trio.transport.framing import FrameDecoder, FrameError, encode_frame

json_scalars = st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.text(max_size=20)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
json_objects = st.dictionaries(st.text(max_size=8), json_values, max_size=5)

descriptors = st.builds(
    bridge.ToolDescriptor,
    name=st.text(min_size=1, max_size=20),
    title=st.text(max_size=20),
    description=st.text(max_size=40),
    input_schema=json_objects,
    annotations=json_objects,
    workspace_use=st.sampled_from(["creates", "uses", "independent"]),
    output_schema=st.none() | json_objects,
)
blocks = st.one_of(
    st.builds(bridge.TextBlock, text=st.text(max_size=50)),
    st.builds(bridge.ImageBlock, data=st.binary(max_size=64), mime_type=st.text(max_size=12)),
)
contexts = st.builds(
    bridge.RequestContext,
    client_label=st.text(max_size=12),
    wants_progress=st.booleans(),
    restriction=st.none() | json_objects,
)
opt_text = st.none() | st.text(max_size=16)
seq = st.integers(0, 2**31)

STRATEGIES = {
    bridge.ClientHello: st.builds(
        bridge.ClientHello,
        bridge_major=seq,
        bridge_minor=seq,
        nonce=st.binary(max_size=32),
        role=st.sampled_from(["edge", "control"]),
        client_version=st.text(max_size=10),
    ),
    bridge.ServiceHello: st.builds(
        bridge.ServiceHello,
        bridge_major=seq,
        bridge_minor=seq,
        client_nonce=st.binary(max_size=32),
        service_nonce=st.binary(max_size=32),
        service_version=st.text(max_size=10),
        instance=st.text(max_size=10),
    ),
    bridge.ServiceProof: st.builds(bridge.ServiceProof, mac=st.binary(max_size=32)),
    bridge.VersionMismatch: st.builds(bridge.VersionMismatch, supported_major=seq, message=st.text()),
    bridge.OpenWorkspace: st.builds(
        bridge.OpenWorkspace, sequence=seq, reattach=opt_text, client_label=st.text(max_size=10)
    ),
    bridge.WorkspaceOpened: st.builds(
        bridge.WorkspaceOpened, sequence=seq, workspace_id=st.text(), reattached=st.booleans()
    ),
    bridge.ReleaseWorkspace: st.builds(bridge.ReleaseWorkspace, workspace_id=st.text()),
    bridge.CatalogRequest: st.builds(
        bridge.CatalogRequest, sequence=seq, restriction=st.none() | json_objects
    ),
    bridge.CatalogProjection: st.builds(
        bridge.CatalogProjection,
        sequence=seq,
        generation=seq,
        tools=st.lists(descriptors, max_size=3),
        restricted=st.booleans(),
    ),
    bridge.CatalogChanged: st.builds(bridge.CatalogChanged, generation=seq),
    bridge.Start: st.builds(
        bridge.Start,
        sequence=seq,
        operation=st.text(max_size=20),
        arguments=json_objects,
        workspace_id=opt_text,
        context=contexts,
    ),
    bridge.Started: st.builds(bridge.Started, sequence=seq, work_id=st.text(max_size=12)),
    bridge.Rejected: st.builds(
        bridge.Rejected,
        sequence=seq,
        code=st.sampled_from(
            ["unknown_tool", "invalid_request", "workspace_required", "unknown_workspace", "busy",
             "shutting_down"]
        ),
        message=st.text(),
        next_step=st.text(),
    ),
    bridge.Progress: st.builds(
        bridge.Progress,
        work_id=st.text(max_size=12),
        progress=st.floats(allow_nan=False, allow_infinity=False),
        total=st.none() | st.floats(allow_nan=False, allow_infinity=False),
        message=st.text(max_size=20),
    ),
    bridge.Outcome: st.builds(
        bridge.Outcome,
        work_id=st.text(max_size=12),
        kind=st.sampled_from(["ok", "tool_error", "denied", "held", "outcome_unknown", "cancelled"]),
        content=st.lists(blocks, max_size=3),
        structured=st.none() | json_objects,
        workspace_id=opt_text,
    ),
    bridge.Cancel: st.builds(bridge.Cancel, work_id=st.text(max_size=12), reason=st.text(max_size=10)),
    bridge.StatusRequest: st.builds(bridge.StatusRequest, sequence=seq),
    bridge.StatusReport: st.builds(
        bridge.StatusReport,
        sequence=seq,
        service_version=st.text(max_size=8),
        pid=seq,
        edges=seq,
        browsers=st.lists(
            st.builds(
                bridge.BrowserSummary,
                slot=seq,
                browser_id=st.text(max_size=8),
                generation=st.text(max_size=8),
                extension_version=st.text(max_size=8),
                features=st.lists(st.text(max_size=8), max_size=3),
            ),
            max_size=2,
        ),
        workspaces=seq,
        active_work=seq,
        held=st.booleans(),
        panicked=st.booleans(),
    ),
    bridge.ControlCommand: st.builds(
        bridge.ControlCommand, sequence=seq, command=st.sampled_from(["hold", "resume", "panic"])
    ),
    bridge.ControlResult: st.builds(
        bridge.ControlResult, sequence=seq, ok=st.booleans(), message=st.text(max_size=40)
    ),
    bridge.Fatal: st.builds(bridge.Fatal, message=st.text()),
}


def test_every_message_type_has_a_strategy() -> None:
    assert set(STRATEGIES) == set(MESSAGE_TYPES.values())


any_message = st.one_of(*STRATEGIES.values())


@settings(max_examples=400)
@given(any_message)
def test_round_trip(message: bridge.Message) -> None:
    assert decode_message(encode_message(message)) == message


@settings(max_examples=300)
@given(any_message, st.data())
def test_truncated_body_is_a_clean_protocol_error(message: bridge.Message, data: st.DataObject) -> None:
    body = encode_message(message)
    cut = data.draw(st.integers(0, len(body) - 1))
    with pytest.raises(BridgeProtocolError):
        decode_message(body[:cut])


@settings(max_examples=400)
@given(any_message, st.data())
def test_corrupted_body_never_crashes(message: bridge.Message, data: st.DataObject) -> None:
    body = bytearray(encode_message(message))
    for _ in range(data.draw(st.integers(1, 4))):
        index = data.draw(st.integers(0, len(body) - 1))
        body[index] = data.draw(st.integers(0, 255))
    try:
        decoded = decode_message(bytes(body))
    except BridgeProtocolError:
        return
    # A corruption that still decodes must yield a well-typed message.
    assert type(decoded) in MESSAGE_TYPES.values()
    attrs.validate(decoded)


@given(st.binary(max_size=200))
def test_random_bytes_never_crash(body: bytes) -> None:
    try:
        decode_message(body)
    except BridgeProtocolError:
        pass


@pytest.mark.parametrize(
    "raw",
    [
        [1, 2],
        {"t": "Nope"},
        {"t": 5},
        {"no": "tag"},
        {"t": "Start", "sequence": "1", "operation": "x", "arguments": {}},
        {"t": "Start", "sequence": True, "operation": "x", "arguments": {}},
        {"t": "Start", "sequence": 1, "operation": "x", "arguments": {}, "extra": 1},
        {"t": "Start", "sequence": 1, "operation": "x", "arguments": {1: 2}},
        {"t": "Outcome", "work_id": "w", "kind": "maybe"},
        {"t": "Outcome", "work_id": "w", "kind": "ok", "content": [{"type": "video"}]},
        {"t": "Cancel"},
    ],
)
def test_ill_typed_maps_are_refused(raw: object) -> None:
    with pytest.raises(BridgeProtocolError):
        decode_message(cbor2.dumps(raw))


def test_schema_key_order_survives() -> None:
    schema = {"type": "object", "properties": {"z": {}, "a": {}, "m": {}}, "required": []}
    message = bridge.CatalogProjection(
        sequence=1,
        generation=1,
        tools=[
            bridge.ToolDescriptor(
                name="t", title="", description="", input_schema=schema, annotations={},
                workspace_use="uses",
            )
        ],
    )
    decoded = decode_message(encode_message(message))
    assert isinstance(decoded, bridge.CatalogProjection)
    assert list(decoded.tools[0].input_schema["properties"]) == ["z", "a", "m"]


# --- framing -----------------------------------------------------------------------------


@given(st.lists(st.binary(max_size=300), max_size=6), st.integers(1, 50))
def test_frames_reassemble_across_any_chunking(bodies: list[bytes], chunk: int) -> None:
    stream = b"".join(encode_frame(body) for body in bodies)
    decoder = FrameDecoder()
    out = []
    for start in range(0, len(stream), chunk):
        decoder.feed(stream[start : start + chunk])
        while (frame := decoder.next_frame()) is not None:
            out.append(frame)
    assert out == bodies
    assert not decoder.has_partial_frame


def test_oversized_length_is_refused_before_the_body_arrives() -> None:
    decoder = FrameDecoder(ceiling=1024)
    decoder.feed((2048).to_bytes(4, "big"))
    with pytest.raises(FrameError, match="exceeds"):
        decoder.next_frame()


def test_encoding_over_the_ceiling_is_refused() -> None:
    with pytest.raises(FrameError):
        encode_frame(b"x" * 11, ceiling=10)


def test_little_endian_native_messaging_frames() -> None:
    frame = encode_frame(b'{"a":1}', endian="little", ceiling=1 << 20)
    assert frame[:4] == (7).to_bytes(4, "little")
    decoder = FrameDecoder(endian="little", ceiling=1 << 20)
    decoder.feed(frame)
    assert decoder.next_frame() == b'{"a":1}'


def test_frame_ready_says_whether_next_frame_needs_more_bytes():
    decoder = FrameDecoder(ceiling=16)
    assert not decoder.frame_ready
    decoder.feed(b"\x00\x00")
    assert not decoder.frame_ready
    decoder.feed(b"\x00\x03ab")
    assert not decoder.frame_ready
    decoder.feed(b"c\x00\x00\x00\x01")
    assert decoder.frame_ready and decoder.next_frame() == b"abc"
    assert not decoder.frame_ready  # the next frame's body has not arrived
    decoder.feed(b"z")
    assert decoder.frame_ready and decoder.next_frame() == b"z"
    decoder.feed(b"\x00\x00\x01\x00")  # over the ceiling: next_frame answers with its error
    assert decoder.frame_ready


def _nested(depth: int) -> list[object]:
    value: list[object] = []
    for _ in range(depth - 1):
        value = [value]
    return value


def test_deep_values_encode_without_recursion_and_decode_or_refuse_cleanly() -> None:
    """The codec's walk over a call's values is iterative: depth is the decoder's business.
    Within CBOR's 400 levels a deep value round-trips; past them decoding is a protocol error,
    never a crash."""
    within = bridge.Start(sequence=1, operation="t", arguments={"a": _nested(390)})
    assert decode_message(encode_message(within)) == within
    outcome = bridge.Outcome(work_id="w", kind="ok", structured={"a": _nested(390)})
    assert decode_message(encode_message(outcome)) == outcome
    beyond = encode_message(bridge.Start(sequence=1, operation="t", arguments={"a": _nested(600)}))
    with pytest.raises(BridgeProtocolError, match="nesting depth"):
        decode_message(beyond)


def test_catalog_request_restriction_is_a_1_1_field_a_1_0_peer_never_sees() -> None:

    from ghostlight_trio.transport.bridge_intake import decode_from_client

    plain = bridge.CatalogRequest(sequence=3)
    assert cbor2.loads(encode_message(plain)) == {"t": "CatalogRequest", "sequence": 3}
    assert decode_from_client(encode_message(plain)) == plain  # a 1.0 connector's frame
    narrowed = bridge.CatalogRequest(sequence=4, restriction={"schema": 3})
    assert bridge.for_peer(narrowed, 0) == bridge.CatalogRequest(sequence=4)
    assert bridge.for_peer(narrowed, 1) is narrowed
    # What JSON cannot hold is taken as an invalid restriction, which lists only always-open tools.
    unfit = cbor2.dumps({"t": "CatalogRequest", "sequence": 5, "restriction": {"a": b"bytes"}})
    assert decode_from_client(unfit) == bridge.CatalogRequest(5, {"invalid": True})
