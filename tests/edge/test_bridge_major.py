"""ADR-0096 gate: a connector and a service of different bridge majors each fail loudly with the
documented message (specs/bridge.md, Versioning; specs/mcp-edge.md, Squatter) and do nothing
else: no call is sent, no other frame is written, and the process goes on serving."""

from __future__ import annotations

import json
import socket
import struct
import time

import pytest

from ghostlight_trio.transport.bridge import (
    BRIDGE_MAJOR,
    BRIDGE_MINOR,
    ClientHello,
    VersionMismatch,
)
from ghostlight_trio.transport.bridge_codec import decode_message, encode_message
from ghostlight_trio.transport.framing import encode_frame

from .harness import META, Connector, Instance, service_kind

OTHER = BRIDGE_MAJOR + 1
CONNECTOR_MESSAGE = (
    f"service speaks bridge {OTHER}.0, this connector speaks {BRIDGE_MAJOR}.{BRIDGE_MINOR};"
    " upgrade both to one release"
)
SERVICE_MESSAGE = (
    f"bridge major {OTHER} is not supported; this service speaks {BRIDGE_MAJOR}.{BRIDGE_MINOR};"
    " upgrade both to one release"
)


def test_a_connector_refuses_a_service_of_another_major(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    instance = Instance(tmp_path_factory.mktemp("other-major"), kind="fake")
    instance.start_service(FAKE_BRIDGE_MAJOR=str(OTHER))
    connector = Connector(instance)  # its lines are schema-checked as they are read
    try:
        call = {"name": "update_plan", "arguments": {"domains": ["a.example"], "approach": []}}
        for request_id, method, params in (
            (1, "tools/call", call),
            (2, "tools/list", {}),
        ):
            line = json.dumps(
                {
                    "jsonrpc": "2.0",
                    "id": request_id,
                    "method": method,
                    "params": {**params, "_meta": json.loads(META)},
                }
            ).encode()
            connector.send_raw(line + b"\n")
            answer = connector.read_line(timeout=20)
            error = json.loads(answer)["error"]
            said = f"Ghostlight service unavailable: {CONNECTOR_MESSAGE}"
            assert (error["code"], error["message"]) == (-33001, said), error
        connector.close_stdin()
        assert connector.wait_exit(10) == 0
        assert CONNECTOR_MESSAGE in connector.stderr.decode(errors="replace")
        after = instance.home / "after-hello.log"
        assert not after.exists() or after.read_text() == "", after.read_text()
    finally:
        connector.terminate()
        instance.stop_service()
        instance.stop_launched_services()


def _frame(sock: socket.socket) -> bytes | None:
    header = sock.recv(4, socket.MSG_WAITALL)
    if len(header) < 4:
        return None
    (length,) = struct.unpack(">I", header)
    return sock.recv(length, socket.MSG_WAITALL)


@pytest.mark.skipif(service_kind() != "real", reason="the real service's refusal")
def test_a_service_refuses_a_connector_of_another_major(shared_instance: Instance) -> None:
    hello = ClientHello(bridge_major=OTHER, bridge_minor=0, nonce=b"n" * 16)
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(10)
        sock.connect(str(shared_instance.socket_path))
        sock.sendall(encode_frame(encode_message(hello)))
        body = _frame(sock)
        assert body is not None
        assert decode_message(body) == VersionMismatch(
            supported_major=BRIDGE_MAJOR, message=SERVICE_MESSAGE
        )
        assert _frame(sock) is None, "nothing follows the refusal: the stream is closed"
    # The service goes on serving a connector of its own major.
    connector = Connector(shared_instance)
    try:
        params = {"_meta": json.loads(META)}
        connector.send({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": params})
        assert "result" in connector.read(timeout=20)
    finally:
        connector.close_stdin()
        connector.wait_exit()
        connector.terminate()
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        texts = [
            path.read_text(errors="replace") for path in shared_instance.home.rglob("service.log")
        ]
        if any(f"client bridge major {OTHER}" in text for text in texts):
            return
        time.sleep(0.2)
    raise AssertionError("the service log does not name the refused major")
