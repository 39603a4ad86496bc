"""Numbers on the command line: a bad one is a usage error that names it, never a traceback
or an odd run; 0 means what it means for ``tail``."""

from __future__ import annotations

import json

import pytest

from ghostlight_trio.cli.main import main


@pytest.mark.parametrize(
    ("argv", "problem"),
    [
        (["logs", "-n", "-1"], "argument -n/--lines: '-1' is not a count (0 or more)"),
        (["audit", "tail", "-n", "lots"], "argument -n: 'lots' is not a count (0 or more)"),
        (["install", "--wait", "-5"], "argument --wait: '-5' is not a number of seconds (0 or more)"),
        (["service", "--idle-timeout", "nan"], "'nan' is not a positive number of seconds"),
    ],
)
def test_a_bad_number_is_a_usage_error_naming_it(instance_env, capsys, argv, problem) -> None:
    with pytest.raises(SystemExit) as caught:
        main(argv)
    assert caught.value.code == 2
    assert problem in capsys.readouterr().err


def test_audit_tail_n_0_shows_no_history(instance_env, endpoints, capsys) -> None:
    """As with ``tail -n 0``: nothing from before (with ``-f``, only what comes next)."""
    endpoints.ensure_private_dirs()
    endpoints.audit_file.write_text(json.dumps({"time": "t", "call": "c", "tool": "x"}) + "\n")
    assert main(["audit", "tail", "-n", "0", "--json"]) == 0
    assert capsys.readouterr() == ("", "")
    assert main(["audit", "tail", "-n", "1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["call"] == "c"


def test_demo_refuses_a_screenshot_path_it_cannot_write_before_starting(
    instance_env, tmp_path, capsys
) -> None:
    """Said at once, not after a whole run whose screenshot is then lost with a traceback."""
    out = tmp_path / "missing" / "shot.jpg"
    assert main(["demo", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"cannot write {out}: {out.parent} is no directory you can write to" in err
    assert not (tmp_path / "home").exists()  # nothing was started for the demo instance
