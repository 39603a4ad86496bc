"""A skewed extension is never a silent failure: tool calls name the versions and the fix."""

from __future__ import annotations

import pytest
import trio

from ghostlight_trio.browser.compat import SUPPORTED_EXTENSIONS, VersionRange, skew_message
from ghostlight_trio.browser.errors import BrowserRefused, BrowserUnavailable
from ghostlight_trio.browser.shore import BrowserShore
from ghostlight_trio.transport.endpoints import Endpoints

from .fake_extension import FakeExtension, until


def test_the_supported_range_is_declared_once_and_checked() -> None:
    assert SUPPORTED_EXTENSIONS.contains("0.1.0")
    assert skew_message("0.1.7") is None
    assert "update the Ghostlight extension" in skew_message("0.0.9")
    assert "update the Ghostlight package" in skew_message("0.2.0")
    assert "(no version)" in skew_message("")
    assert not VersionRange("1.0.0", "2.0.0").contains("garbage")


async def test_a_call_to_a_skewed_extension_fails_with_the_versions(
    shore: BrowserShore, endpoints: Endpoints
) -> None:
    peer, welcome = await FakeExtension.attach(endpoints.browser_socket, extension_version="0.0.3")
    assert welcome["type"] == "welcome"
    await until(lambda: shore.connected_count == 1)
    [summary] = shore.summaries()
    assert summary.extension_version == "0.0.3"  # admitted, so status and doctor can show it
    with pytest.raises(BrowserRefused) as caught:
        await shore.request(None, "ping", {}, timeout=1)
    message = str(caught.value)
    assert "extension 0.0.3 is not supported" in message
    assert str(SUPPORTED_EXTENSIONS) in message and "update the Ghostlight extension" in message


async def test_a_refused_wire_major_is_named_in_the_unavailable_error(
    shore: BrowserShore, endpoints: Endpoints
) -> None:
    peer = await FakeExtension.connect(endpoints.browser_socket)
    await peer.send({"type": "relay_hello", "wire": 1})
    await peer.send(
        {"type": "hello", "wire": 2, "browserId": "b", "generation": "g", "extensionVersion": "2.0.0"}
    )
    with trio.fail_after(2):
        assert (await peer.receive())["type"] == "incompatible"
    with pytest.raises(BrowserUnavailable) as caught:
        await shore.request(None, "ping", {}, timeout=1)
    assert "extension 2.0.0 speaks browser wire 2" in str(caught.value)
