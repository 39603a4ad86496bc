"""``--json`` against a running service: start, the switches and stop each print one object,
as a script driving the service needs them."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

pytestmark = pytest.mark.process


def _json(env: dict[str, str], *args: str) -> tuple[int, dict[str, object]]:
    done = subprocess.run(
        [sys.executable, "-m", "ghostlight_trio", *args, "--json"],
        env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    return done.returncode, json.loads(done.stdout)


def test_start_hold_resume_stop_as_json(instance_env: dict[str, str]) -> None:
    try:
        code, started = _json(instance_env, "service", "start")
        assert code == 0 and started["ok"] is True and "kept warm" in str(started["message"])
        code, status = _json(instance_env, "status")
        assert code == 0 and status["up"] is True and "error" not in status
        for switch in ("hold", "resume"):
            code, body = _json(instance_env, switch)
            assert code == 0 and body["command"] == switch and body["message"]
    finally:
        code, stopped = _json(instance_env, "service", "stop")
    assert code == 0 and "service stopped" in str(stopped["message"])
