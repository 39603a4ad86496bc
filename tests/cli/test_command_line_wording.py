"""The command line as a person meets it: help for the bare command, refusals that say what to
do instead, and no command that quietly does nothing useful with the wrong input."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ghostlight_trio.cli.main import main
from ghostlight_trio.cli.wording import os_problem


def test_the_bare_command_prints_the_help_and_is_a_usage_error(capsys) -> None:
    assert main([]) == 2
    out = capsys.readouterr().out
    assert out.startswith("usage: ghostlight") and "install" in out and "policy" in out


def test_a_missing_subcommand_is_called_command(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["policy"])
    err = capsys.readouterr().err
    assert "required: COMMAND" in err and "policy_command" not in err


def test_keep_warm_with_an_idle_timeout_is_refused(instance_env, capsys) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["service", "--keep-warm", "--idle-timeout", "1"])
    assert caught.value.code == 2
    assert "--keep-warm never exits when idle" in capsys.readouterr().err


@pytest.mark.parametrize("command", [["demo"], ["browser", "launch"]])
def test_browser_names_an_id_so_a_path_goes_to_browser_path(instance_env, capsys, command) -> None:
    with pytest.raises(SystemExit) as caught:
        main([*command, "--browser", "/usr/bin/chromium"])
    assert caught.value.code == 2
    assert "--browser-path PATH" in capsys.readouterr().err


def test_policy_check_takes_the_instance_after_the_file_name(instance_env, tmp_path, capsys) -> None:
    manifest = tmp_path / "p.json"
    assert main(["policy", "init", str(manifest)]) == 0
    assert main(["policy", "check", "--instance", "other", str(manifest)]) == 0
    assert f"{manifest}: ok" in capsys.readouterr().out


def test_policy_init_never_overwrites(instance_env, tmp_path, capsys) -> None:
    manifest = tmp_path / "p.json"
    manifest.write_text("mine")
    assert main(["policy", "init", str(manifest)]) == 1
    assert "already exists" in capsys.readouterr().err
    assert manifest.read_text() == "mine"


def test_policy_simulate_refuses_a_manifest_as_its_audit_file(
    instance_env, set_up_instance, tmp_path, capsys
) -> None:
    manifest = tmp_path / "p.json"
    assert main(["policy", "init", str(manifest)]) == 0
    compact = tmp_path / "compact.json"
    compact.write_text(json.dumps(json.loads(manifest.read_text())) + "\n")
    capsys.readouterr()
    for wrong in (manifest, compact):
        assert main(["policy", "simulate", str(wrong)]) == 1
        assert "is no audit trail" in capsys.readouterr().err


def test_policy_simulate_says_its_exit_codes(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["policy", "simulate", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "0 when no call would be denied, 2 when some would" in text


def test_an_os_error_reads_as_a_sentence() -> None:
    problem = os_problem(FileNotFoundError(2, "No such file or directory", "/x/y"))
    assert problem == "/x/y does not exist"


def test_logs_follow_waits_for_a_log_not_yet_written(instance_env, set_up_instance) -> None:
    """As ``audit tail -f`` does: the service may be about to start."""
    endpoints = set_up_instance
    follower = subprocess.Popen(
        [sys.executable, "-m", "ghostlight_trio.cli.main", "logs", "-f"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=instance_env,
    )
    try:
        time.sleep(1.0)
        assert follower.poll() is None  # still waiting, not failed
        endpoints.ensure_private_dirs()
        descriptor = os.open(endpoints.log_file, os.O_WRONLY | os.O_CREAT, 0o600)
        os.write(descriptor, b"first line\n")
        os.close(descriptor)
        assert follower.stdout is not None
        assert follower.stdout.readline() == b"first line\n"
    finally:
        follower.kill()
        follower.wait()


def test_the_browser_connector_help_is_a_usage_not_a_relay() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "ghostlight_browser_connector", "--help"],
        capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 0 and done.stdout.startswith("usage: ghostlight-browser-connector")


def test_the_bench_help_lists_its_sections() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "tests.bench", "--help"],
        capture_output=True, text=True, timeout=60, cwd=Path(__file__).parents[2],
    )  # fmt: skip
    assert done.returncode == 0 and "governance" in done.stdout
