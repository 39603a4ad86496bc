"""Pressing a switch that is already on says so, whether a service takes the command or it is
saved for the next one: a second ``panic`` no longer reads as if it had just engaged."""

from __future__ import annotations

import trio

from ghostlight_trio.cli.safety_command import control
from ghostlight_trio.governance.governor import Governor


def test_a_second_panic_says_the_kill_switch_was_already_engaged() -> None:
    governor = Governor()
    assert governor.panic().startswith("Kill switch engaged:")
    assert governor.panic().startswith("Kill switch already engaged:")
    assert governor.hold().startswith("Held:") and governor.hold().startswith("Already held.")


def test_a_second_panic_saved_while_down_says_so_too(set_up_instance, capsys) -> None:
    for command, first, again in (
        ("panic", "Kill switch engaged:", "Kill switch already engaged:"),
        ("hold", "Held:", "Already held:"),
    ):
        assert trio.run(control, set_up_instance, command) == 0
        assert capsys.readouterr().out.startswith(first)
        assert trio.run(control, set_up_instance, command) == 0
        assert capsys.readouterr().out.startswith(again)
