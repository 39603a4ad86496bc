"""Admission of one relay connection: relay hello, then the extension hello, within bounds.

A connection that does not identify itself exactly this way is dropped without touching any
browser state (a bare probe, a stranger, a wrong wire major).
"""

from __future__ import annotations

from typing import Any

import attrs
import trio

from ..transport.browser_link import WIRE_MAJOR
from ..transport.framing import FrameError
from ..transport.stream import BridgeClosed, MessageStream
from . import wire

HELLO_TIMEOUT = 5.0
"""How long an admitted relay has to deliver the extension hello."""


@attrs.frozen
class ExtensionHello:
    """The identity an extension claims for its browser profile and browser process."""

    browser_id: str
    generation: str
    features: frozenset[str]
    extension_version: str
    relay_pid: int | None
    headless: bool = False
    """The browser runs without a screen: no one sees its tabs."""


class AdmissionRefused(Exception):
    """The peer is not an admissible browser relay; the reason is for the log only."""


class WireSkew(AdmissionRefused):
    """An extension that speaks another wire major: refused, and remembered for diagnostics."""


async def admit(stream: MessageStream, *, within: float = HELLO_TIMEOUT) -> ExtensionHello:
    """Read the relay hello and the extension hello; raise ``AdmissionRefused`` otherwise.

    A wrong wire major is answered with ``incompatible`` before the refusal.
    """
    with trio.move_on_after(within) as scope:
        relay = await _next_frame(stream, "relay hello")
        if relay.get("type") != "relay_hello":
            raise AdmissionRefused(f"first frame was {relay.get('type')!r}, not relay_hello")
        hello = await _next_frame(stream, "extension hello")
    if scope.cancelled_caught:
        raise AdmissionRefused(f"no extension hello within {within:g}s")
    if hello.get("type") != "hello":
        raise AdmissionRefused(f"second frame was {hello.get('type')!r}, not hello")
    if hello.get("wire") != WIRE_MAJOR:
        await _send_incompatible(stream, hello.get("wire"))
        raise WireSkew(
            f"extension {hello.get('extensionVersion', '?')!s} speaks browser wire"
            f" {hello.get('wire')!r}, this service speaks {WIRE_MAJOR}; update the older side"
        )
    browser_id = hello.get("browserId")
    if not isinstance(browser_id, str) or not browser_id.strip():
        raise AdmissionRefused("extension hello has no browserId")
    generation = hello.get("generation")
    features = hello.get("features")
    relay_pid = relay.get("relayPid")
    return ExtensionHello(
        browser_id=browser_id,
        generation=generation if isinstance(generation, str) else "",
        features=frozenset(f for f in features if isinstance(f, str))
        if isinstance(features, list)
        else frozenset(),
        extension_version=str(hello.get("extensionVersion", "")),
        relay_pid=relay_pid if isinstance(relay_pid, int) else None,
        headless=hello.get("headless") is True,
    )


async def _next_frame(stream: MessageStream, what: str) -> dict[str, Any]:
    try:
        return wire.decode(await stream.receive_body())
    except (BridgeClosed, FrameError, wire.WireError) as exc:
        raise AdmissionRefused(f"no valid {what}: {exc}") from None


async def _send_incompatible(stream: MessageStream, their_major: object) -> None:
    frame = {
        "type": "incompatible",
        "message": (
            f"This Ghostlight service speaks browser wire {WIRE_MAJOR}, the extension"
            f" speaks {their_major!r}; update the older side."
        ),
    }
    with trio.move_on_after(1):
        try:
            await stream.send_body(wire.encode(frame))
        except BridgeClosed:
            pass
