"""The user's switch is never lost to a service that happened to be down or stuck: hold, panic
and resume are saved for the next service to start (the one an agent's client starts on demand
a moment later included), and the CLI says what took effect and what did not."""

from __future__ import annotations

import json
import os
import signal

import pytest
from bench.harness import service_process as service_with_process  # tests/ is on sys.path
from browser.session_driver import text

from ghostlight_trio.transport.endpoints import Endpoints

from .processes import PLAN, cli, edge, service_process

pytestmark = pytest.mark.process


def _switches(env: dict[str, str]) -> dict[str, bool]:
    endpoints = Endpoints.for_instance()  # the instance ``instance_env`` exported
    return json.loads((endpoints.data_dir / "switches.json").read_text())


async def test_panic_while_no_service_runs_is_in_force_when_one_starts(instance_env, set_up_instance):
    panicked = cli(instance_env, "panic")
    assert panicked.returncode == 0, panicked.stderr
    assert panicked.stdout.startswith("Kill switch engaged: the service for instance")
    assert "is not running" in panicked.stdout and "ghostlight resume" in panicked.stdout
    assert _switches(instance_env) == {"held": False, "panicked": True}

    with service_process(instance_env) as endpoints:  # as an agent's client would start it
        async with edge(endpoints) as agent:
            ws = await agent.workspace("agent")
            refused = await agent.call("tabs_context_mcp", {}, ws, "agent")
            assert refused.kind == "held" and "kill switch" in text(refused), text(refused)
        resumed = cli(instance_env, "resume")
        assert resumed.returncode == 0 and resumed.stdout.startswith("Resumed (kill switch)")
    assert _switches(instance_env) == {"held": False, "panicked": False}


def test_hold_and_resume_while_down_are_saved_and_a_workspace_resume_says_why_not(instance_env, set_up_instance):
    held = cli(instance_env, "hold")
    assert held.returncode == 0 and held.stdout.startswith("Held: the service")
    assert _switches(instance_env) == {"held": True, "panicked": False}
    resumed = cli(instance_env, "resume")
    assert resumed.returncode == 0 and "starts with neither hold nor the kill switch" in resumed.stdout
    assert _switches(instance_env) == {"held": False, "panicked": False}
    one = cli(instance_env, "resume", "--workspace", "ws-0123456789abcdef")
    assert one.returncode == 1 and "no workspace is paused while it is down" in one.stderr


async def test_panic_on_a_stuck_service_is_saved_for_its_restart(instance_env):
    with service_with_process(instance_env) as (endpoints, service):
        async with edge(endpoints) as agent:
            assert (await agent.call("update_plan", PLAN, None, "agent")).kind == "ok"
        os.kill(service.pid, signal.SIGSTOP)
        try:
            panicked = cli(instance_env, "panic")
        finally:
            os.kill(service.pid, signal.SIGCONT)
    assert panicked.returncode == 1
    assert "saved for the service's next start" in panicked.stderr
    assert "ghostlight service restart" in panicked.stderr
    assert _switches(instance_env)["panicked"] is True
