"""A pause follows its client within the connection: a workspace the connection mints after
one of its workspaces was paused starts paused, so minting a fresh one is no way around it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from browser.session_driver import text  # tests/ is on sys.path (rootdir packages)

from ghostlight_trio.governance.attention import AttentionCircuits

from .processes import DENYING_POLICY, acli, edge, service_process, write_json

SIGNATURE = ("evil.test", frozenset({"read"}), "policy")


def test_a_new_workspace_carries_a_pause_only_from_paused_kin():
    circuits = AttentionCircuits()
    for _ in range(3):
        circuits.record("paused", SIGNATURE, 0.0)
    assert not circuits.carry("fresh-a", ["calm", "other"])
    assert not circuits.is_open("fresh-a")
    assert circuits.carry("fresh-b", ["calm", "paused"])
    assert circuits.is_open("fresh-b") and circuits.was_carried("fresh-b")
    assert not circuits.was_carried("paused")
    assert set(circuits.paused()) == {"paused", "fresh-b"}
    assert circuits.resume_one("fresh-b") == 1 and not circuits.was_carried("fresh-b")
    assert circuits.resume_all() == 1 and not circuits.carry("fresh-c", ["paused"])


def test_resuming_the_workspace_that_earned_the_pause_resumes_what_it_carried_to():
    circuits = AttentionCircuits()
    for _ in range(3):
        circuits.record("earned", SIGNATURE, 0.0)
    assert circuits.carry("second", ["earned"])
    assert circuits.carry("third", ["second"])  # carried on from a carried pause: same origin
    assert circuits.resume_one("earned") == 3
    assert circuits.paused() == ()
    # With nothing paused, the client's next workspace is free.
    assert not circuits.carry("fourth", ["second", "third"])


@pytest.mark.process
async def test_a_paused_client_cannot_mint_its_way_out(instance_env, tmp_path: Path):
    policy = write_json(tmp_path / "policy.json", DENYING_POLICY)
    env = {**instance_env, "GHOSTLIGHT_MANIFEST": str(policy)}
    with service_process(env) as endpoints:
        async with edge(endpoints) as agent, edge(endpoints) as bystander:
            first = await agent.workspace("agent")
            kinds = [(await agent.call("tabs_context_mcp", {}, first, "agent")).kind for _ in range(4)]
            assert kinds == ["denied", "denied", "denied", "held"], kinds

            # A stateless client names no workspace, so the service mints one for the call.
            minted = await agent.call("tabs_context_mcp", {}, None, "agent")
            assert minted.kind == "held", text(minted)
            assert "a new workspace starts paused too" in text(minted)
            # So does a second workspace the same connection opens.
            second = await agent.workspace("agent")
            again = await agent.call("tabs_context_mcp", {}, second, "agent")
            assert again.kind == "held" and "NOT executed" in text(again)

            # Another client's connection is not paused: its call meets the policy.
            other = await bystander.call("tabs_context_mcp", {}, None, "bystander")
            assert other.kind == "denied", text(other)

            assert (await acli(env, "resume")).returncode == 0
            freed = await agent.call("tabs_context_mcp", {}, None, "agent")
            assert freed.kind == "denied", text(freed)
    events = [json.loads(line) for line in endpoints.audit_file.read_text().splitlines()]
    named = [(e["event"], e.get("workspace", "")[:3]) for e in events if "event" in e]
    assert named == [
        ("attention_opened", "ws-"), ("attention_carried", "ws-"), ("attention_carried", "ws-"),
        ("resume", ""),
    ]


def test_the_user_resumes_a_client_by_the_workspace_the_audit_names():
    from ghostlight_trio.governance.governor import Governor

    governor = Governor(fingerprint=lambda handle: f"ws-{handle}")
    for _ in range(3):
        governor.attention.record("alpha", SIGNATURE, 0.0)
    assert governor.attention.carry("beta", ["alpha"])
    ok, said = governor.control("resume workspace ws-alpha")
    assert ok and said == (
        "Resumed workspace ws-alpha, and the 1 workspace its client opened while it was paused."
    )
    assert governor.attention.paused() == ()
