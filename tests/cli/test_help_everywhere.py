"""Every option and positional of every command says what it is for, and shows its default
when it has one worth saying: ``--help`` is the only manual most people read."""

from __future__ import annotations

import argparse
from collections.abc import Iterator

from ghostlight_trio.cli.main import build_parser
from ghostlight_trio.cli.parsing import DefaultsFormatter

_SILENT = (argparse._HelpAction, argparse._VersionAction)


def _walk(
    parser: argparse.ArgumentParser, path: str = "ghostlight"
) -> Iterator[tuple[str, argparse.ArgumentParser, argparse.Action]]:
    for action in parser._actions:
        if isinstance(action, _SILENT):
            continue
        if isinstance(action, argparse._SubParsersAction):
            helped = {choice.dest: choice.help for choice in action._choices_actions}
            for name, sub in action.choices.items():
                yield f"{path} {name}", parser, _Named(name, helped.get(name))
                yield from _walk(sub, f"{path} {name}")
            continue
        yield path, parser, action


class _Named(argparse.Action):
    """A subcommand as the walk reports it: its name and its line in the parent's help."""

    def __init__(self, name: str, text: str | None) -> None:
        super().__init__(option_strings=[], dest=name, help=text)


def _name(action: argparse.Action) -> str:
    return "/".join(action.option_strings) or action.dest


def test_every_option_positional_and_command_has_help() -> None:
    actions = list(_walk(build_parser()))
    assert len(actions) > 60  # the walk reached the nested commands
    missing = [
        f"{path}: {_name(action)}"
        for path, _, action in actions
        if action.help is None or not str(action.help).strip()
    ]
    assert missing == []


def test_every_default_worth_saying_is_shown() -> None:
    unshown = []
    for path, parser, action in _walk(build_parser()):
        unsaid = action.default is None or action.default is False
        if action.help is argparse.SUPPRESS or unsaid or action.default is argparse.SUPPRESS:
            continue
        if isinstance(action, _Named):
            continue
        text = DefaultsFormatter(parser.prog)._get_help_string(action) or ""
        if "default" not in text:
            unshown.append(f"{path}: {_name(action)}")
    assert unshown == []


def test_the_help_text_names_a_default_in_full(capsys) -> None:
    parser = build_parser()
    try:
        parser.parse_args(["logs", "--help"])
    except SystemExit:
        pass
    out = capsys.readouterr().out
    assert "how many lines (default: 50)" in " ".join(out.split())


def test_the_hidden_browser_alias_is_the_only_option_without_visible_help() -> None:
    hidden = sorted(
        f"{path}: {_name(action)}"
        for path, _, action in _walk(build_parser())
        if action.help is argparse.SUPPRESS
    )
    assert hidden == [
        "ghostlight browser launch: --browser",
        "ghostlight demo: --browser",
        "ghostlight replay: --browser",
    ]
