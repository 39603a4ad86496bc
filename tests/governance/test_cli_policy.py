"""``ghostlight policy check | explain | simulate`` and ``ghostlight audit show | tail`` as real
processes, the replay against an audit file a real service recorded."""

from __future__ import annotations

import json
import queue
import re
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
import trio
from browser.session_driver import text  # tests/ is on sys.path (rootdir packages)

from ghostlight_trio.governance.denial import denial_id
from ghostlight_trio.governance.manifest import load_manifest

from .processes import (
    ALLOWING_POLICY,
    DENYING_POLICY,
    PLAN,
    acli,
    cli,
    edge,
    service_process,
    write_json,
)

pytestmark = pytest.mark.process

SIMULATED = re.compile(r"^\S+Z  (?P<call>\S+)  (?P<tool>\S+)  \S+  (?P<verdict>.+?)  (?P<rule>\S+)$")


def _env(instance_env: dict[str, str], policy: Path) -> dict[str, str]:
    return {**instance_env, "GHOSTLIGHT_MANIFEST": str(policy)}


# --- check -----------------------------------------------------------------------------------


def test_check_accepts_a_valid_manifest(instance_env, tmp_path):
    policy = write_json(tmp_path / "policy.json", DENYING_POLICY)
    done = cli(instance_env, "policy", "check", str(policy))
    label = load_manifest(policy).label
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"{policy}: ok ({label}, 1 grants, mode enforce)\n"


def test_check_of_a_file_that_never_ends_stops_and_says_why(instance_env):
    done = cli(instance_env, "policy", "check", "/dev/zero")
    assert done.returncode == 1
    assert "is a character device, not a regular file; put a regular file there" in done.stderr


def test_check_rejects_and_names_the_field_of_each_problem(instance_env, tmp_path):
    body: dict[str, Any] = json.loads(json.dumps(DENYING_POLICY))
    body["grants"][0]["colour"] = "red"
    body["grants"][0]["hosts"]["allow"].append("docs.example/path")
    bad = write_json(tmp_path / "bad.json", body)
    done = cli(instance_env, "policy", "check", str(bad))
    assert done.returncode == 1 and done.stdout == ""
    lines = done.stderr.splitlines()
    assert lines[0] == f"{bad}: rejected"
    assert any(line.strip().startswith("grants[0].colour: unknown field") for line in lines)
    assert any(
        line.strip().startswith("grants[0].hosts.allow[2]: 'docs.example/path' is not a host pattern")
        for line in lines
    ), lines


def test_check_names_the_line_of_a_json_syntax_error(instance_env, tmp_path):
    broken = tmp_path / "broken.json"
    broken.write_text('{\n  "schema": 3,\n  "name": "team",,\n  "grants": []\n}\n')
    done = cli(instance_env, "policy", "check", str(broken))
    assert done.returncode == 1
    assert re.search(r"^  line 3 column \d+: ", done.stderr, re.MULTILINE), done.stderr
    missing = cli(instance_env, "policy", "check", str(tmp_path / "absent.json"))
    assert missing.returncode == 1 and "cannot read the file" in missing.stderr


# --- explain ---------------------------------------------------------------------------------


def test_a_manifest_given_to_the_service_is_kept_for_every_later_start(instance_env, tmp_path):
    """``service --manifest`` is the instance's policy from then on: ``policy explain`` (and
    every later start, which reads the same record) sees it without the flag; a file that does
    not load is refused before anything starts; ``--manifest none`` drops it."""
    policy = write_json(tmp_path / "policy.json", DENYING_POLICY)
    label = load_manifest(policy).label
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    refused = cli(instance_env, "service", "stop", "--manifest", str(broken))
    assert refused.returncode == 2
    assert f"--manifest {broken}:" in refused.stderr and "nothing was started" in refused.stderr
    kept = cli(instance_env, "service", "stop", "--manifest", str(policy))
    assert kept.returncode == 0, kept.stderr
    explained = cli(instance_env, "policy", "explain")
    assert explained.stdout.splitlines()[1] == f"User policy {label}, enforced:"
    doctor = cli(instance_env, "doctor")
    assert f"user {load_manifest(policy).name} (enforce)" in doctor.stdout
    dropped = cli(instance_env, "service", "stop", "--manifest", "none")
    assert dropped.returncode == 0
    assert cli(instance_env, "policy", "explain").stdout.startswith("No policy is active")


def test_explain_prints_the_grants_deterministically(instance_env, set_up_instance, tmp_path):
    policy = write_json(tmp_path / "policy.json", DENYING_POLICY)
    label = load_manifest(policy).label
    current = cli(_env(instance_env, policy), "policy", "explain")
    assert current.returncode == 0, current.stderr
    assert current.stdout == (
        "Every tier below must allow a call (a deny in any tier stands).\n"
        f"User policy {label}, enforced:\n"
        "  Grant 'docs' allows action on *.docs.example, docs.example (observe only).\n"
        "  Anything no grant covers is denied; actions that need nothing are allowed.\n"
        "No never-touch sites are configured.\n"
        "Password-like fields in page reads are redacted.\n"
    )
    assert cli(_env(instance_env, policy), "policy", "explain").stdout == current.stdout

    candidate = cli(instance_env, "policy", "explain", str(policy))
    assert candidate.returncode == 0
    assert candidate.stdout.splitlines()[0] == f"Candidate policy {label}, enforced:"
    assert candidate.stdout.splitlines()[1:] == current.stdout.splitlines()[2:4]

    all_open = cli(instance_env, "policy", "explain")
    assert all_open.returncode == 0 and all_open.stdout.startswith("No policy is active (all-open)")


def test_explain_of_a_file_lists_its_never_touch_sites(instance_env, set_up_instance, tmp_path):
    """``simulate --manifest FILE`` refuses the file's ``sacred`` sites, so explaining the file
    names them; the whole policy names them once, in its never-touch line."""
    policy = write_json(
        tmp_path / "policy.json", {**DENYING_POLICY, "sacred": ["bank.example", "*.bank.example"]}
    )
    candidate = cli(instance_env, "policy", "explain", str(policy))
    assert candidate.returncode == 0, candidate.stderr
    assert candidate.stdout.splitlines()[-1] == (
        "  Never-touch sites (refused in every mode, whatever the grants): bank.example,"
        " *.bank.example."
    )
    current = cli(_env(instance_env, policy), "policy", "explain")
    assert current.stdout.count("bank.example,") == 1
    assert "Never-touch sites (refused in every mode): bank.example, *.bank.example." in current.stdout


# --- simulate and audit against a live recording -----------------------------------------------


async def _record_live(env: dict[str, str]) -> tuple[Path, str]:
    """Denied, allowed and ownership-refused calls through a real service's bridge; returns the
    audit file and the text of the service's own ``explain`` tool."""
    with service_process(env) as endpoints:
        async with edge(endpoints) as bridge:
            ws = await bridge.workspace("agent")
            for _ in range(2):
                denied = await bridge.call("tabs_context_mcp", {}, ws, "agent")
                assert denied.kind == "denied" and text(denied).startswith("Denied (D-")
                assert "by the user's policy: tabs_context_mcp needs read, which no grant allows." in text(denied)
            assert (await bridge.call("update_plan", PLAN, ws, "agent")).kind == "ok"
            foreign = await bridge.call("navigate", {"url": "https://x.test/", "tabId": 5}, ws, "agent")
            assert foreign.kind == "denied" and "not in this workspace" in text(foreign)
            explained = await bridge.call("explain", {}, ws, "agent")
            assert explained.kind == "ok"
    return endpoints.audit_file, text(explained)


async def test_simulate_replays_a_live_audit_file_with_the_live_denial_ids(instance_env, tmp_path):
    policy = write_json(tmp_path / "policy.json", DENYING_POLICY)
    env = _env(instance_env, policy)
    audit, explained = await _record_live(env)
    records = [r for r in map(json.loads, audit.read_text().splitlines()) if "event" not in r]
    live = [(r["call"], r["denial_id"]) for r in records if r["rule"] == "capability"]
    assert len(live) == 2
    expected_id = denial_id(load_manifest(policy).hash, "", "capability")
    assert {ident for _, ident in live} == {expected_id}

    # The CLI's explanation is the policy part of the service's own explain tool.
    cli_explained = (await acli(env, "policy", "explain")).stdout
    assert explained.startswith(cli_explained.rstrip("\n"))

    replay = await acli(env, "policy", "simulate", str(audit))
    assert replay.returncode == 2, replay.stderr
    *rows, summary = replay.stdout.splitlines()
    matched = [SIMULATED.match(row) for row in rows]
    assert all(matched), rows
    simulated = [(m["call"], m["verdict"].removeprefix("deny ")) for m in matched if m]
    assert simulated == live  # same calls, same ids; the ownership refusal is not replayed
    assert summary == "4 calls replayed, 2 would be denied, 0 denied when recorded would now be allowed."

    wider = write_json(tmp_path / "wider.json", ALLOWING_POLICY)
    freed = await acli(env, "policy", "simulate", str(audit), "--manifest", str(wider))
    assert freed.returncode == 0, freed.stderr
    *rows, summary = freed.stdout.splitlines()
    matched = [SIMULATED.match(row) for row in rows]
    assert [(m["call"], m["verdict"]) for m in matched if m] == [
        (call, f"allow (was {ident})") for call, ident in live
    ]
    assert summary == "4 calls replayed, 0 would be denied, 2 denied when recorded would now be allowed."

    bad = await acli(env, "policy", "simulate", str(tmp_path / "absent.jsonl"))
    assert bad.returncode == 1 and "does not exist" in bad.stderr


def _rows(stdout: str) -> list[list[str]]:
    header, *rows = stdout.splitlines()
    assert header.split()[:4] == ["TIME", "CALL", "WORKSPACE", "TOOL"]
    return [row.split() for row in rows]


async def test_audit_show_filters_and_tail_reads_the_same_live_file(instance_env, tmp_path):
    env = _env(instance_env, write_json(tmp_path / "policy.json", DENYING_POLICY))
    audit, _ = await _record_live(env)
    records = [r for r in map(json.loads, audit.read_text().splitlines()) if "event" not in r]

    by_tool = _rows((await acli(env, "audit", "show", "--tool", "tabs_context_mcp")).stdout)
    assert [row[3] for row in by_tool] == ["tabs_context_mcp"] * 2
    assert [row[8] for row in by_tool] == [r["denial_id"] for r in records[:2]]

    denied = _rows((await acli(env, "audit", "show", "--decision", "deny")).stdout)
    assert [(row[3], row[7]) for row in denied] == [
        ("tabs_context_mcp", "capability"), ("tabs_context_mcp", "capability"),
        ("navigate", "unowned_tab"),
    ]
    allowed = _rows(
        (await acli(env, "audit", "show", "--decision", "allow", "--tool", "update_plan")).stdout
    )
    assert [(row[3], row[6], row[7]) for row in allowed] == [("update_plan", "allow", "free")]
    workspace = records[0]["workspace"]
    mine = _rows((await acli(env, "audit", "show", "--workspace", workspace)).stdout)
    assert len(mine) == len(records) and {row[2] for row in mine} == {workspace}

    tail = await acli(env, "audit", "tail", "-n", "2", "--json")
    assert tail.returncode == 0
    assert [json.loads(line) for line in tail.stdout.splitlines()] == records[-2:]
    table = _rows((await acli(env, "audit", "tail", "-n", "2")).stdout)
    assert [row[3] for row in table] == ["navigate", "explain"]


def test_audit_show_stops_quietly_when_its_reader_goes_away(instance_env, endpoints):
    record = {"time": "2026-01-01T00:00:00.000Z", "call": "c", "workspace": "ws-0", "tool": "t"}
    endpoints.ensure_private_dirs()
    endpoints.audit_file.write_text((json.dumps(record) + "\n") * 5000)
    reader = subprocess.Popen(
        [sys.executable, "-m", "ghostlight_trio", "audit", "show"],
        env=instance_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    assert reader.stdout is not None and reader.stderr is not None
    assert reader.stdout.readline().startswith(b"TIME")
    reader.stdout.close()  # like `| head -1`
    _, err = reader.communicate(timeout=30)
    assert reader.returncode == 1 and b"Traceback" not in err, err


def test_audit_says_so_when_there_is_nothing_to_show(instance_env, set_up_instance, endpoints):
    """An empty table is explained on stderr (no file yet, or nothing matched); stdout stays a
    table or JSON lines to parse."""

    def audit(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "ghostlight_trio", "audit", *args],
            env=instance_env, capture_output=True, text=True, timeout=60,
        )

    before = audit("tail", "--json")
    assert (before.returncode, before.stdout) == (0, "")
    assert f"no audit records yet: {endpoints.audit_file} is written" in before.stderr
    record = {"time": "2026-01-01T00:00:00.000Z", "call": "c", "workspace": "ws-0", "tool": "t"}
    endpoints.ensure_private_dirs()
    endpoints.audit_file.write_text(json.dumps(record) + "\n")
    unmatched = audit("show", "--tool", "navigate")
    assert unmatched.returncode == 0 and _rows(unmatched.stdout) == []
    assert f"no records match; audit file: {endpoints.audit_file}" in unmatched.stderr
    matched = audit("show", "--tool", "t")
    assert len(_rows(matched.stdout)) == 1 and matched.stderr == ""
    # A time filter that cannot be read is a usage error, never a filter matching nothing.
    for flag, value in (("--since", "99x"), ("--until", "yesterday")):
        unreadable = audit("show", flag, value)
        assert unreadable.returncode == 2 and f"{value!r} is not a time" in unreadable.stderr
    dated = audit("show", "--since", "2025-12-31", "--until", "2026-01-01T01:00")
    assert dated.returncode == 0 and len(_rows(dated.stdout)) == 1
    impossible = audit("show", "--since", "2026-13-45")
    assert impossible.returncode == 2 and "'2026-13-45' is not a time" in impossible.stderr


def test_time_filters_take_the_whole_span_they_name_and_its_offset():
    from ghostlight_trio.cli.arguments import when
    from ghostlight_trio.cli.audit_command import select

    records = [
        {"time": "2026-11-30T23:45:48.120Z", "call": "late"},
        {"time": "2026-12-01T00:00:00.000Z", "call": "next-day"},
    ]

    def calls(**bounds: str) -> list[str]:
        chosen = select(records, **{k: when(v) for k, v in bounds.items()})
        return [r["call"] for r in chosen]

    assert calls(until="2026-11-30") == ["late"]
    assert calls(since="2026-11-30", until="2026-11-30") == ["late"]
    assert calls(until="2026-11-30T23:45") == ["late"]
    assert calls(until="2026-11-30T23:44") == []
    assert calls(since="2026-12-01T01:00+05:00") == ["late", "next-day"]  # 20:00Z
    assert calls(since="2026-12-01T04:46+05:00") == ["next-day"]  # 23:46Z
    assert calls(since="2026-12") == ["next-day"]


def test_audit_tail_follows_new_records_across_a_rotation(instance_env, endpoints):
    """``audit tail -f``: the latest records, then each new one as it is written, including a
    line written in two parts and the records of a fresh file after the log rotated."""
    endpoints.ensure_private_dirs()
    audit_file = endpoints.audit_file

    def record(call: str) -> str:
        return json.dumps({"time": "2026-01-01T00:00:00.000Z", "call": call, "tool": "t"}) + "\n"

    audit_file.write_text(record("old-1") + record("old-2"))
    follower = subprocess.Popen(
        [sys.executable, "-m", "ghostlight_trio", "audit", "tail", "-f", "-n", "1", "--json"],
        env=instance_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    lines: queue.Queue[bytes] = queue.Queue()
    assert follower.stdout is not None
    threading.Thread(target=lambda: [lines.put(line) for line in follower.stdout], daemon=True).start()

    def next_call() -> str:
        return json.loads(lines.get(timeout=30))["call"]

    try:
        assert next_call() == "old-2"
        with audit_file.open("a") as log:
            log.write(record("new-1"))
        assert next_call() == "new-1"
        half = record("split")
        with audit_file.open("a") as log:
            log.write(half[:20])
            log.flush()
            time.sleep(0.6)  # the follower looks at least twice meanwhile: half a line is held
            log.write(half[20:] + record("last-before-rotation"))
        assert next_call() == "split"
        assert next_call() == "last-before-rotation"
        audit_file.rename(audit_file.with_name(audit_file.name + ".1"))
        audit_file.write_text(record("after-rotation"))
        assert next_call() == "after-rotation"
    finally:
        follower.terminate()
        follower.wait(10)
    assert lines.empty()


def test_foreign_lines_in_an_audit_file_are_skipped_by_every_reader(instance_env, endpoints):
    """Lines no audit writer writes (nesting past what a parser follows, half a surrogate pair,
    a torn tail) are skipped by show, tail -f and simulate alike; the records around them
    still read."""
    endpoints.ensure_private_dirs()
    good = {"time": "2026-01-01T00:00:00.000Z", "call": "1.a", "tool": "t", "outcome": "ok"}
    endpoints.audit_file.write_text(
        '{"time":"2026-01-01T00:00:00.000Z","call":"0.a","tool":"t\\ud800"}\n'
        + "[" * 3000 + "]" * 3000 + "\n"
        + json.dumps(good) + "\n"
        + '{"time":"2026-01-01T00:00:0'
    )

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "ghostlight_trio", *args],
            env=instance_env, capture_output=True, text=True, timeout=60,
        )

    shown = run("audit", "show", "--json")
    assert shown.returncode == 0
    assert shown.stderr == "(3 unreadable lines skipped: torn or not audit records)\n"
    assert [json.loads(line) for line in shown.stdout.splitlines()] == [good]
    simulated = run("policy", "simulate", str(endpoints.audit_file))
    assert simulated.returncode == 0 and "Traceback" not in simulated.stderr, simulated.stderr
    follower = subprocess.Popen(
        [sys.executable, "-m", "ghostlight_trio", "audit", "tail", "-f", "-n", "5", "--json"],
        env=instance_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    try:
        assert follower.stdout is not None
        assert json.loads(follower.stdout.readline()) == good
    finally:
        follower.terminate()
        _, err = follower.communicate(timeout=10)
    assert b"Traceback" not in err


async def test_explain_shows_the_policy_the_running_service_keeps_after_a_broken_edit(
    instance_env, tmp_path
):
    """A broken edit leaves the service on its last good policy: ``explain`` shows that one (as
    the service itself tells it), never the stand-in a broken file would mean at a fresh start;
    ``simulate`` against the files says it cannot see the kept policy."""
    policy = write_json(tmp_path / "policy.json", ALLOWING_POLICY)
    label = load_manifest(policy).label
    env = _env(instance_env, policy)
    with service_process(env):
        policy.write_text('{"schema": 3, "name": "broken"')
        with trio.fail_after(20):
            while True:
                explained = await acli(env, "policy", "explain")
                if "Problem (last good policy kept)" in explained.stdout:
                    break
                await trio.sleep(0.3)
        assert "the running service enforces this policy" in explained.stderr
        assert f"User policy {label}, enforced:" in explained.stdout
        assert "Grant 'all' allows read+action on every host." in explained.stdout
        assert "unloadable" not in explained.stdout
        audit = tmp_path / "empty.jsonl"
        audit.write_text("")
        replay = await acli(env, "policy", "simulate", str(audit))
        assert "A running service keeps its last good policy" in replay.stderr
    down = await acli(env, "policy", "explain")
    assert "no service is running" in down.stderr
