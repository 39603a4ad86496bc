"""``--instance`` is accepted wherever a person puts it: before the command, after it, and
after a nested command; the last one given wins."""

from __future__ import annotations

import pytest

from ghostlight_trio.cli.main import build_parser

COMMANDS = [
    ["status"], ["doctor"], ["install"], ["uninstall"], ["logs"], ["hold"], ["resume"],
    ["panic"], ["service", "stop"], ["policy", "check", "FILE"], ["policy", "explain"],
    ["policy", "simulate", "AUDIT"], ["policy", "init"], ["audit", "tail"], ["audit", "show"],
    ["browser", "launch"], ["demo"],
]  # fmt: skip


def _placements(command: list[str]) -> list[list[str]]:
    """``--instance x`` after every word of the command line, and before the first."""
    flag = ["--instance", "x"]
    return [command[:at] + flag + command[at:] for at in range(len(command) + 1)]


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_instance_in_every_position(command: list[str]) -> None:
    parser = build_parser()
    for argv in _placements(command):
        assert parser.parse_args(argv).instance == "x", argv


def test_the_last_instance_given_wins() -> None:
    args = build_parser().parse_args(["--instance", "a", "policy", "check", "--instance", "b", "F"])
    assert args.instance == "b"


def test_no_instance_leaves_the_environment_to_choose() -> None:
    assert not hasattr(build_parser().parse_args(["policy", "check", "F"]), "instance")
