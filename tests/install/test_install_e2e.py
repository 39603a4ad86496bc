"""``ghostlight install --client claude-code``, then the connector exactly as that config says,
driven by the official MCP Python SDK through a real ``tools/list``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
SDK_CLIENT = HERE.parent / "edge" / "sdk_client.py"

pytestmark = pytest.mark.process


def ghostlight(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ghostlight_trio", *args],
        env=env, capture_output=True, text=True, timeout=60,
    )


def test_installed_claude_code_entry_serves_tools_list(
    tmp_path: Path, instance_env: dict[str, str]
) -> None:
    home = tmp_path / "user"
    home.mkdir()
    env = {**instance_env, "HOME": str(home)}
    env.pop("XDG_CONFIG_HOME", None)
    instance = env["GHOSTLIGHT_INSTANCE"]

    done = ghostlight(env, "install", "--client", "claude-code")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "[ok]     create Claude Code" in done.stdout
    config = json.loads((home / ".claude.json").read_text())
    entry = config["mcpServers"][f"ghostlight-{instance}"]
    assert entry["type"] == "stdio"
    assert Path(entry["command"]).name == "ghostlight-mcp-connector"
    assert entry["args"] == ["--instance", instance]

    # Start the connector exactly as the entry says: its command, args and env on top of ours.
    server_env = {**env, **entry["env"]}
    try:
        run = subprocess.run(
            [sys.executable, str(SDK_CLIENT), "2025-11-25", entry["command"], *entry["args"]],
            env=server_env, capture_output=True, timeout=90,
        )
        assert run.returncode == 0, run.stderr.decode(errors="replace")
        summary = json.loads(run.stdout.decode().strip().splitlines()[-1])
        assert summary["protocol_version"] == "2025-11-25"
        assert {"update_plan", "navigate", "tabs_context_mcp"} <= set(summary["tools"])
        assert summary["ok_error"] is False

        again = ghostlight(env, "install", "--client", "claude-code")
        assert "[noop]   Claude Code" in again.stdout and "0 applied" in again.stdout
        status = ghostlight(env, "status")
        assert status.returncode == 0 and "service    up" in status.stdout
    finally:
        stopped = ghostlight(env, "service", "stop")
    assert stopped.returncode == 0, stopped.stderr
    assert "service stopped" in stopped.stdout or "not running" in stopped.stdout

    removed = ghostlight(env, "uninstall", "--client", "claude-code")
    assert removed.returncode == 0, removed.stdout
    assert not (home / ".claude.json").exists()
