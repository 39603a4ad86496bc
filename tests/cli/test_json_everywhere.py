"""Every command a script calls takes ``--json`` and prints JSON on stdout and nothing else; a
failure keeps its non-zero exit and says why in an ``error`` field."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from ghostlight_trio.cli.main import build_parser, main

SCRIPTED = {
    "status", "doctor", "install", "uninstall", "logs", "hold", "resume", "panic", "service",
    "policy check", "policy explain", "policy simulate", "policy init", "audit tail",
    "audit show", "browser launch", "browser list", "browser stop", "instances", "bundle",
    "replay",
}  # fmt: skip
"""Every command but the demo and watch (live views for a person) and completion (a shell
script) takes --json; ``service`` only with
start|stop|restart (the foreground service prints no result)."""

JSON_LINES = {"audit tail", "audit show"}
"""These print one JSON object per record, as they always have."""


def _commands_with_json(parser: argparse.ArgumentParser, path: str = "") -> dict[str, bool]:
    found: dict[str, bool] = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                here = f"{path} {name}".strip()
                inner = _commands_with_json(sub, here)
                found.update(inner or {here: any("--json" in a.option_strings for a in sub._actions)})
    return found


def test_every_scripted_command_has_json_and_only_the_live_views_have_none() -> None:
    found = _commands_with_json(build_parser())
    assert {name for name, has in found.items() if has} == SCRIPTED
    assert {name for name, has in found.items() if not has} == {"demo", "watch", "completion"}


@pytest.fixture
def isolated(instance_env, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home, config and temp dir of the test's own, so install touches nothing real."""
    home = tmp_path / "user"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.delenv("CODEX_HOME", raising=False)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _audit_trail(endpoints, record: dict[str, object]) -> None:
    endpoints.ensure_private_dirs()
    endpoints.audit_file.write_text(json.dumps(record) + "\n")


RECORD = {"time": "2026-11-30T14:05:00Z", "call": "c1", "tool": "navigate", "decision": "allow"}


@pytest.mark.parametrize(
    ("argv", "codes"),
    [
        (["status"], {1}),  # no service runs: the JSON error form
        (["doctor"], {0, 1}),
        (["install", "--dry-run"], {0}),
        (["uninstall", "--dry-run"], {0}),
        (["logs"], {1}),  # no log yet
        (["hold"], {0}),  # saved for the next service
        (["panic"], {0}),
        (["resume"], {0}),
        (["resume", "--workspace", "ws-0000000000000000"], {1}),  # needs a running service
        (["service", "stop"], {0}),
        (["policy", "init", "p.json"], {0}),
        (["policy", "check", "missing.json"], {1}),
        (["policy", "explain"], {0}),
        (["policy", "simulate", "AUDIT"], {0}),
        (["bundle", "--out", "ghostlight.mcpb"], {0}),
        (["bundle", "--out", "AUDIT/ghostlight.mcpb"], {1}),  # a file where a folder must be
        (["browser", "list"], {0}),
        (["browser", "stop"], {0}),
        (["browser", "stop", "--all"], {0}),
        (["replay", "missing.json"], {2}),  # refused before anything starts
        (["replay", "AUDIT"], {2}),  # JSON, but no exported script
    ],
)
def test_each_prints_one_json_object(isolated, endpoints, capsys, argv, codes) -> None:
    _audit_trail(endpoints, RECORD)
    argv = [word.replace("AUDIT", str(endpoints.audit_file)) for word in argv]
    code = main([*argv, "--json"])
    out = capsys.readouterr().out
    body = json.loads(out)
    assert isinstance(body, dict)
    assert code in codes
    assert ("error" in body) == (code != 0), body


def test_audit_prints_json_lines(isolated, endpoints, capsys) -> None:
    _audit_trail(endpoints, RECORD)
    for argv in (["audit", "tail"], ["audit", "show"]):
        assert main([*argv, "--json"]) == 0
        lines = capsys.readouterr().out.splitlines()
        assert [json.loads(line)["call"] for line in lines] == ["c1"]


def test_policy_init_then_check_as_json(isolated, capsys) -> None:
    assert main(["policy", "init", "p.json", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"ok": True, "file": "p.json"}
    assert main(["policy", "check", "p.json", "--json"]) == 0
    checked = json.loads(capsys.readouterr().out)
    assert checked["ok"] is True and checked["grants"] == 2 and checked["mode"] == "observe"


def test_a_usage_error_with_json_is_json_too(isolated, capsys) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["policy", "check", "--json"])
    assert caught.value.code == 2
    captured = capsys.readouterr()
    body = json.loads(captured.out)
    assert body["usage"] is True and "FILE" in body["error"].upper()
    assert "required" in captured.err


def test_a_bad_instance_name_with_json_is_json(isolated, capsys) -> None:
    assert main(["status", "--instance", "../x", "--json"]) == 2
    assert "error" in json.loads(capsys.readouterr().out)


def test_install_json_lists_each_change_it_made(isolated, capsys) -> None:
    assert main(["install", "--json"]) == 0
    body = json.loads(capsys.readouterr().out)
    states = {action["state"] for action in body["actions"]}
    assert "applied" in states and body["dry_run"] is False
    assert body["counts"]["applied"] == sum(a["state"] == "applied" for a in body["actions"])
    assert main(["uninstall", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["command"] == "uninstall"
