"""Resuming one paused workspace by its audit fingerprint: the circuit, the control command,
the gate, and the real CLI against a real service."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from browser.session_driver import text  # tests/ is on sys.path (rootdir packages)

from ghostlight_trio.governance.attention import AttentionCircuits
from ghostlight_trio.governance.governor import Governor

from .harness import (
    OTHER_TAB,
    TAB,
    FakeBrowser,
    GovernedHarness,
    grant,
    manifest,
    navigating_handler,
    state,
)
from .processes import (
    DENYING_POLICY,
    PLAN,
    acli,
    audit_calls,
    cli,
    edge,
    service_process,
    write_json,
)

SIGNATURE = ("evil.test", frozenset({"read"}), "policy")


def _pause(circuits: AttentionCircuits, workspace: str, now: float = 0.0) -> None:
    for _ in range(3):
        circuits.record(workspace, SIGNATURE, now)
    assert circuits.is_open(workspace)


# --- the circuit -------------------------------------------------------------------------------


def test_resume_one_closes_only_that_circuit_and_starts_it_afresh():
    circuits = AttentionCircuits()
    _pause(circuits, "a")
    _pause(circuits, "b")
    assert set(circuits.paused()) == {"a", "b"}
    assert circuits.resume_one("a") == 1
    assert not circuits.is_open("a") and circuits.is_open("b")
    assert circuits.paused() == ("b",)
    assert circuits.resume_one("a") == 0  # no longer paused
    assert circuits.resume_one("never-seen") == 0
    # Its history starts empty: it takes the full count again to reopen.
    assert not circuits.record("a", SIGNATURE, 1.0)
    assert not circuits.record("a", SIGNATURE, 1.0)
    assert circuits.record("a", SIGNATURE, 1.0)


# --- the control command -----------------------------------------------------------------------


def _governor() -> tuple[Governor, list[str]]:
    governor = Governor(fingerprint=lambda handle: f"ws-{handle}")
    heard: list[str] = []
    governor.listeners.append(heard.append)
    _pause(governor.attention, "alpha")
    _pause(governor.attention, "beta")
    return governor, heard


def test_resume_workspace_command_resumes_exactly_that_workspace():
    governor, heard = _governor()
    assert governor.control("resume workspace ws-alpha") == (True, "Resumed workspace ws-alpha.")
    assert not governor.attention.is_open("alpha") and governor.attention.is_open("beta")
    assert heard == ["resume_workspace"]
    assert governor.control("  resume   workspace\tws-beta ")[0] is True  # words, not spacing
    assert governor.attention.paused() == ()


def test_an_unknown_or_missing_fingerprint_changes_nothing_and_says_what_is_paused():
    governor, heard = _governor()
    ok, message = governor.control("resume workspace ws-nope")
    assert not ok and "No paused workspace 'ws-nope'" in message
    assert "ws-alpha, ws-beta" in message  # where the user can look next
    ok, message = governor.control("resume workspace ws-alpha ws-beta")
    assert not ok and message.startswith("Usage:")
    assert governor.control("resume workspace")[0] is False
    assert governor.control("resume workspaces ws-alpha")[0] is False
    assert set(governor.attention.paused()) == {"alpha", "beta"} and heard == []


def test_one_workspace_resume_leaves_hold_and_kill_switch_alone():
    governor, _ = _governor()
    governor.hold()
    governor.panic()
    ok, message = governor.control("resume workspace ws-alpha")
    assert ok and "hold and kill switch still on" in message
    assert governor.held and governor.panicked and governor.attention.is_open("beta")
    assert governor.control("resume") == (True, "Resumed (hold, kill switch, 1 paused workspace).")
    assert not governor.held and not governor.panicked and governor.attention.paused() == ()


def test_without_a_fingerprint_function_only_resume_all_is_possible():
    governor = Governor()
    _pause(governor.attention, "alpha")
    ok, message = governor.control("resume workspace ws-alpha")
    assert not ok and "ghostlight resume" in message
    assert governor.attention.is_open("alpha")


# --- through the gate ------------------------------------------------------------------------


async def test_a_resumed_workspace_runs_again_while_another_stays_paused(nursery, tmp_path):
    policy = state(manifest(grant("docs", ["docs.test"], ["read"])))
    browser = FakeBrowser()
    handlers = {"navigate": navigating_handler(browser)}
    h = GovernedHarness(nursery, handlers, tmp_path / "audit.jsonl", policy, browser=browser)
    first, second = h.workspace(TAB), h.workspace(OTHER_TAB)
    for ws, tab in ((first, TAB), (second, OTHER_TAB)):
        for _ in range(3):
            out = await h.call("navigate", {"url": "https://evil.test/", "tabId": tab}, ws)
            assert out.kind == "denied"
        paused = await h.call("navigate", {"url": "https://docs.test/", "tabId": tab}, ws)
        assert paused.kind == "held" and "Attention required" in text(paused)

    ok, message = h.governor.control(f"resume workspace {h.workspaces.fingerprint(first)}")
    assert ok, message
    again = await h.call("navigate", {"url": "https://docs.test/", "tabId": TAB}, first)
    assert again.kind == "ok", text(again)
    still = await h.call("navigate", {"url": "https://docs.test/", "tabId": OTHER_TAB}, second)
    assert still.kind == "held" and "Attention required" in text(still)


# --- the real CLI against a real service -------------------------------------------------------


@pytest.mark.process
async def test_cli_resumes_one_workspace_by_its_audit_fingerprint(instance_env, tmp_path: Path):
    policy = write_json(tmp_path / "policy.json", DENYING_POLICY)
    env = {**instance_env, "GHOSTLIGHT_MANIFEST": str(policy)}
    with service_process(env) as endpoints:
        async with edge(endpoints) as bridge:
            spaces = {label: await bridge.workspace(label) for label in ("agent-a", "agent-b")}
            for label, ws in spaces.items():
                kinds = [
                    (await bridge.call("tabs_context_mcp", {}, ws, label)).kind for _ in range(4)
                ]
                assert kinds == ["denied", "denied", "denied", "held"], kinds
                # Service-local tools still run in a paused workspace.
                assert (await bridge.call("update_plan", PLAN, ws, label)).kind == "ok"

            # The user finds the paused workspace's fingerprint in the audit trail.
            fingerprints = {
                r["client"]: r["workspace"] for r in audit_calls(endpoints) if r["rule"] == "attention"
            }
            assert set(fingerprints) == {"agent-a", "agent-b"}
            assert all(fp.startswith("ws-") for fp in fingerprints.values())
            shown = await acli(env, "audit", "show", "--decision", "held")
            assert fingerprints["agent-a"] in shown.stdout and fingerprints["agent-b"] in shown.stdout

            resumed = await acli(env, "resume", "--workspace", fingerprints["agent-a"])
            assert resumed.returncode == 0, resumed.stderr
            assert resumed.stdout.strip() == f"Resumed workspace {fingerprints['agent-a']}."

            after = await bridge.call("tabs_context_mcp", {}, spaces["agent-a"], "agent-a")
            assert after.kind == "denied" and text(after).startswith("Denied (D-"), text(after)
            other = await bridge.call("tabs_context_mcp", {}, spaces["agent-b"], "agent-b")
            assert other.kind == "held" and "Attention required" in text(other)

            unknown = await acli(env, "resume", "--workspace", "ws-0000000000000000")
            assert unknown.returncode == 1
            assert "No paused workspace 'ws-0000000000000000'" in unknown.stdout
            assert fingerprints["agent-b"] in unknown.stdout  # still paused, and named
            twice = await acli(env, "resume", "--workspace", fingerprints["agent-a"])
            assert twice.returncode == 1  # no longer paused

            everything = await acli(env, "resume")
            assert everything.returncode == 0 and "1 paused workspace" in everything.stdout
            freed = await bridge.call("tabs_context_mcp", {}, spaces["agent-b"], "agent-b")
            assert freed.kind == "denied"
    events = [json.loads(line) for line in endpoints.audit_file.read_text().splitlines()]
    # Each pause and each resume is a line of its own, naming the workspace by its fingerprint.
    assert [(e["event"], e.get("workspace")) for e in events if "event" in e] == [
        ("attention_opened", fingerprints["agent-a"]),
        ("attention_opened", fingerprints["agent-b"]),
        ("resume_workspace", fingerprints["agent-a"]),
        ("resume", None),
    ]


def test_cli_refuses_a_fingerprint_that_cannot_be_one(instance_env, set_up_instance):
    refused = cli(instance_env, "resume", "--workspace", "ws-a b")
    assert refused.returncode == 2 and "not a workspace fingerprint" in refused.stderr
