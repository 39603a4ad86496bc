"""Hostile frames: the CBOR bridge decoder with every message tag and wrong types in every field,
and Chrome's native-messaging reader (sans-IO and the real browser connector process)."""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
from pathlib import Path

import attrs
import cbor2
import pytest
import trio
from ghostlight_browser_connector.chrome_frames import ChromeClosed, ChromeFrameReader
from hypothesis import given
from hypothesis import strategies as st

from ghostlight_trio.transport.bridge import MESSAGE_TYPES
from ghostlight_trio.transport.bridge_codec import BridgeProtocolError, decode_message

from .profiles import STATS, fuzz_settings
from .strategies import json_values

cbor_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats()
    | st.text(max_size=20)
    | st.binary(max_size=20),
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.text(max_size=8) | st.integers(), inner, max_size=4)
    | st.builds(cbor2.CBORTag, st.integers(6, 2**20), inner),
    max_leaves=15,
)


@st.composite
def tagged_maps(draw: st.DrawFn) -> bytes:
    """A map that names a real message type, with each of its fields present or not and of any
    type; now and then a whole different CBOR value."""
    tag = draw(st.sampled_from(sorted(MESSAGE_TYPES)))
    kind = MESSAGE_TYPES[tag]
    body: dict[object, object] = {"t": tag}
    for field in attrs.fields(kind):
        if draw(st.integers(0, 3)):
            body[field.name] = draw(cbor_values | json_values)
    if not draw(st.integers(0, 9)):
        body[draw(st.text(max_size=6))] = draw(cbor_values)
    if not draw(st.integers(0, 9)):
        return cbor2.dumps(draw(cbor_values))
    return cbor2.dumps(body)


@fuzz_settings(quick=200, long=5_000)
@given(body=tagged_maps() | st.binary(max_size=300))
def test_fuzz_bridge_decoder_refuses_cleanly(body: bytes) -> None:
    STATS["bridge decoder: examples"] += 1
    try:
        message = decode_message(body)
    except BridgeProtocolError:
        STATS["bridge decoder: refused"] += 1
        return
    assert type(message) in MESSAGE_TYPES.values()
    attrs.validate(message)
    STATS["bridge decoder: accepted and well-typed"] += 1


def test_deeply_nested_cbor_is_refused() -> None:
    """100 000 nested arrays inside a Start's arguments (built by hand: encoding it recursively
    would itself overflow the stack)."""
    d = cbor2.dumps
    head = b"\xa4" + d("t") + d("Start") + d("sequence") + d(1) + d("operation") + d("x")
    body = head + d("arguments") + b"\xa1" + d("a") + b"\x81" * 100_000 + b"\x01"
    with pytest.raises(BridgeProtocolError):
        decode_message(body)


# --- Chrome's native-messaging frames --------------------------------------------------------


class Chunks(trio.abc.ReceiveStream):
    def __init__(self, chunks: list[bytes]) -> None:
        self._chunks = list(chunks)

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        await trio.lowlevel.checkpoint()
        if not self._chunks:
            return b""
        chunk = self._chunks.pop(0)
        if max_bytes is not None and len(chunk) > max_bytes:
            self._chunks.insert(0, chunk[max_bytes:])
            chunk = chunk[:max_bytes]
        return chunk

    async def aclose(self) -> None:
        pass


CEILING = 64


@fuzz_settings(quick=300, long=10_000)
@given(
    bodies=st.lists(st.binary(max_size=2 * CEILING), max_size=8),
    chunk=st.integers(1, 97),
    truncate=st.integers(0, 6),
)
def test_fuzz_native_reader_stays_in_step(bodies: list[bytes], chunk: int, truncate: int) -> None:
    STATS["native reader: examples"] += 1
    stream = b"".join(struct.pack("<I", len(body)) + body for body in bodies)
    if truncate and stream:
        stream = stream[: max(0, len(stream) - truncate)]
    chunks = [stream[i : i + chunk] for i in range(0, len(stream), chunk)]

    async def read_all() -> list[bytes]:
        reader = ChromeFrameReader(Chunks(chunks), ceiling=CEILING)
        out: list[bytes] = []
        try:
            while True:
                out.append(await reader.next_frame())
        except ChromeClosed:
            return out

    got = trio.run(read_all)
    expected = [body for body in bodies if len(body) <= CEILING]
    if truncate:
        assert got == expected[: len(got)]  # a cut-off tail is never delivered half-read
    else:
        assert got == expected


@fuzz_settings(quick=4, long=40)
@given(frames=st.lists(st.binary(max_size=300) | json_values.map(lambda v: json.dumps(v).encode()), max_size=6),
       tail=st.binary(max_size=12))
def test_fuzz_real_browser_connector_process(tmp_path_factory, frames: list[bytes], tail: bytes) -> None:
    """Garbage from "Chrome" (no extension hello): the host exits 0 at end of input and writes
    nothing but native frames."""
    STATS["browser connector process: examples"] += 1
    base = Path(tmp_path_factory.mktemp("native"))
    (base / "run").mkdir(mode=0o700)
    env = {
        **os.environ,
        "GHOSTLIGHT_INSTANCE": "n" + os.urandom(5).hex(),
        "GHOSTLIGHT_HOME": str(base / "home"),
        "XDG_RUNTIME_DIR": str(base / "run"),
    }
    data = b"".join(struct.pack("<I", len(f)) + f for f in frames) + tail
    done = subprocess.run(
        [sys.executable, "-m", "ghostlight_browser_connector", "chrome-extension://x/"],
        input=data, env=env, capture_output=True, timeout=60,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    out = done.stdout
    while out:  # only well-formed native frames toward Chrome
        (length,) = struct.unpack("<I", out[:4])
        json.loads(out[4 : 4 + length])
        out = out[4 + length :]
    assert b"Traceback" not in done.stderr, done.stderr[-2000:]
