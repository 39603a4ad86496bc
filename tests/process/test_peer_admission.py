"""Process level: a peer running as another uid is closed before any frame; the owner is served.

The service runs as a real subprocess. To let another uid even reach the socket, the test opens
up the directory and socket modes (the service itself creates them 0700/0600); admission must
then rest on SO_PEERCRED alone.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import uuid
from pathlib import Path

import pytest
from bench.harness import running_service  # tests/ is on sys.path (rootdir packages)

from ghostlight_trio.transport.bridge import BRIDGE_MAJOR, BRIDGE_MINOR, ClientHello
from ghostlight_trio.transport.bridge_codec import encode_message
from ghostlight_trio.transport.endpoints import Endpoints
from ghostlight_trio.transport.framing import encode_frame

NOBODY = 65534
SYSTEM_PYTHON = "/usr/bin/python3"

PROBE = Path(__file__).resolve().parents[1] / "other_uid_probe.py"

pytestmark = [
    pytest.mark.process,
    pytest.mark.skipif(os.geteuid() != 0, reason="needs root to run a peer as another uid"),
    pytest.mark.skipif(shutil.which("setpriv") is None, reason="setpriv (util-linux) is missing"),
]


@pytest.fixture
def open_service():
    """A real service whose socket path other uids can reach (modes opened by the test)."""
    base = Path(tempfile.mkdtemp(prefix="glt-uid-", dir="/tmp"))
    base.chmod(0o711)
    env = {
        **os.environ,
        "GHOSTLIGHT_INSTANCE": "u" + uuid.uuid4().hex[:8],
        "GHOSTLIGHT_HOME": str(base / "home"),
        "XDG_RUNTIME_DIR": str(base),
    }
    try:
        with running_service(env) as endpoints:
            for directory in (endpoints.runtime_dir.parent, endpoints.runtime_dir):
                directory.chmod(0o711)
            endpoints.edge_socket.chmod(0o666)
            yield endpoints
    finally:
        shutil.rmtree(base, ignore_errors=True)


def _probe(endpoints: Endpoints, *as_user: str) -> str:
    hello = encode_frame(
        encode_message(ClientHello(bridge_major=BRIDGE_MAJOR, bridge_minor=BRIDGE_MINOR, nonce=b"n" * 16))
    )
    result = subprocess.run(
        [*as_user, SYSTEM_PYTHON, "-c", PROBE.read_text(), str(endpoints.edge_socket), hello.hex(), "first"],
        capture_output=True,
        text=True,
        timeout=20,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_the_owner_gets_the_service_hello(open_service: Endpoints) -> None:
    assert int(_probe(open_service).splitlines()[-1]) > 0


def test_another_uid_is_closed_before_any_frame(open_service: Endpoints) -> None:
    other = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
    output = _probe(open_service, *other)
    assert output.splitlines() == ["0"], output
