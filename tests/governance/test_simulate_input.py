"""What ``policy simulate FILE`` replays: the instance's own trail with its rotated files, any
other file just as named; a directory is an error, and skipped lines are counted."""

from __future__ import annotations

import json

import pytest

from .processes import cli

pytestmark = pytest.mark.process


def call(name: str) -> str:
    record = {
        "time": "2026-01-01T00:00:00.000Z", "call": name, "tool": "tabs_context_mcp",
        "action": None, "host": None, "decision": "allow", "rule": "all_open", "denial_id": "",
    }  # fmt: skip
    return json.dumps(record) + "\n"


def summary(done) -> str:
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()[-1]


def test_a_named_file_is_replayed_alone(instance_env, set_up_instance, tmp_path):
    named = tmp_path / "copy.jsonl"
    named.write_text(call("a") + call("b"))
    named.with_name("copy.jsonl.1").write_text(call("older"))
    done = cli(instance_env, "policy", "simulate", str(named))
    assert summary(done).startswith("2 calls replayed,") and done.stderr == ""


def test_the_instance_trail_includes_its_rotations(instance_env, endpoints):
    endpoints.ensure_private_dirs()
    endpoints.audit_file.write_text(call("new"))
    endpoints.audit_file.with_name(endpoints.audit_file.name + ".1").write_text(call("old"))
    done = cli(instance_env, "policy", "simulate", str(endpoints.audit_file))
    assert summary(done).startswith("2 calls replayed,")


def test_a_directory_is_an_error_not_an_empty_replay(instance_env, set_up_instance, tmp_path):
    done = cli(instance_env, "policy", "simulate", str(tmp_path))
    assert done.returncode == 1 and done.stdout == ""
    assert f"{tmp_path} is a directory, not an audit file" in done.stderr


def test_unreadable_lines_are_counted_on_stderr(instance_env, set_up_instance, tmp_path):
    named = tmp_path / "torn.jsonl"
    named.write_text(call("a") + '{"time": "2026-01-01T00:00:0\n' + "garbage\n" + call("b"))
    done = cli(instance_env, "policy", "simulate", str(named))
    assert summary(done).startswith("2 calls replayed,")
    assert done.stderr == "(2 unreadable lines skipped: torn or not audit records)\n"
