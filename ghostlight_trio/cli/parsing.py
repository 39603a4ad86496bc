"""The parser class every ``ghostlight`` command uses: help shows each option's default, and a
usage error can also be told as JSON to a script that asked for ``--json``."""

from __future__ import annotations

import argparse
import sys
from typing import Any, NoReturn


class UsageError(SystemExit):
    """A command line argparse refused (exit 2), with argparse's own message kept for JSON."""

    def __init__(self, message: str) -> None:
        super().__init__(2)
        self.message = message


class DefaultsFormatter(argparse.HelpFormatter):
    """Appends ``(default: X)`` where an option has a default worth saying (not None, not
    False, not one its help already names)."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help
        default = action.default
        if (
            text
            and text is not argparse.SUPPRESS
            and not _unsaid(default)
            and "default" not in text
            and (action.option_strings or action.nargs in (argparse.OPTIONAL, argparse.ZERO_OR_MORE))
        ):
            text += " (default: %(default)s)"
        return text


def _unsaid(default: object) -> bool:
    """A default that goes without saying: none, off, or hidden (0 is a default to say)."""
    return default is None or default is False or default is argparse.SUPPRESS


class Parser(argparse.ArgumentParser):
    """``argparse.ArgumentParser`` with defaults shown; subparsers are made of the same class."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        kwargs.setdefault("formatter_class", DefaultsFormatter)
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        sys.stderr.write(f"{self.prog}: error: {message}\n")
        raise UsageError(message)


def subcommands(parser: argparse.ArgumentParser, dest: str) -> Any:
    """A required subcommand group; a missing one is named ``COMMAND`` in the error, not by its
    internal ``dest``."""
    return parser.add_subparsers(dest=dest, required=True, metavar="COMMAND")
