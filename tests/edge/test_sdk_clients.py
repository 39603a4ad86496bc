"""Official MCP clients drive the real connector (Python SDK in all eras, TypeScript SDK v1)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from .harness import HERE, PYTHON, Instance
from .schema_oracle import check_recording

NODE_DIR = HERE / "node"


def _tapped(instance: Instance, log: Path) -> list[str]:
    """The connector command behind ``wire_tap.py``, which records both directions in ``log``."""
    return [PYTHON, str(HERE / "wire_tap.py"), str(log), "--", *instance.connector_command()]


@pytest.mark.parametrize(
    ("mode", "revision"),
    [("2025-11-25", "2025-11-25"), ("2026-07-28", "2026-07-28"), ("auto", "2026-07-28")],
)
def test_python_sdk(mode: str, revision: str, shared_instance: Instance, tmp_path: Path) -> None:
    log = tmp_path / "wire.log"
    done = subprocess.run(
        [PYTHON, str(HERE / "sdk_client.py"), mode, *_tapped(shared_instance, log)],
        env=shared_instance.env,
        capture_output=True,
        timeout=90,
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    summary = json.loads(done.stdout.decode().strip().splitlines()[-1])
    assert summary["protocol_version"] == revision
    assert "update_plan" in summary["tools"]
    assert len(summary["tools"]) == len(set(summary["tools"]))
    assert summary["ok_error"] is False
    assert summary["ok_text"].startswith("Plan recorded.")
    assert summary["bad_error"] is True
    assert "update_plan" in summary["bad_text"]
    assert "larger than 4194304 bytes" in summary["oversized"], summary["oversized"]
    assert check_recording(log) >= 4


def test_typescript_sdk_v1(shared_instance: Instance, tmp_path: Path) -> None:
    node = shutil.which("node")
    if node is None or not (NODE_DIR / "node_modules" / "@modelcontextprotocol" / "sdk").is_dir():
        reason = "TypeScript SDK not installed: run `npm ci` in tests/edge/node"
        print(reason)
        pytest.skip(reason)
    log = tmp_path / "wire.log"
    done = subprocess.run(
        [node, str(NODE_DIR / "client_v1.mjs"), *_tapped(shared_instance, log)],
        env=shared_instance.env,
        capture_output=True,
        timeout=90,
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    summary = json.loads(done.stdout.decode().strip().splitlines()[-1])
    assert "update_plan" in summary["tools"]
    assert summary["okError"] is False
    assert summary["okText"].startswith("Plan recorded.")
    assert summary["badError"] is True
    assert "larger than 4194304 bytes" in summary["oversized"], summary["oversized"]
    assert check_recording(log) >= 4


def test_node_package_is_pinned() -> None:
    package = json.loads((NODE_DIR / "package.json").read_text())
    assert package["dependencies"]["@modelcontextprotocol/sdk"] == "1.32.2"
    assert Path(NODE_DIR / "client_v1.mjs").is_file()
