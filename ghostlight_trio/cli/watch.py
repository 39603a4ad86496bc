"""``ghostlight watch``: what each agent does now, per workspace, as a person reads it.

It follows the instance's audit trail with the same follower as ``audit tail -f`` and starts
nothing: watching must never be what brings a service up. It ends with Ctrl-C.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, TextIO

from ..transport.endpoints import Endpoints
from . import arguments
from .audit_command import Skipped, followed
from .watch_lines import STARTED, Lines, is_call, outcome

HISTORY = 10

_RED, _YELLOW, _DIM, _BOLD, _RESET = "\033[31m", "\033[33m", "\033[2m", "\033[1m", "\033[0m"


def add_parser(commands: Any, instance: argparse.ArgumentParser) -> None:
    watch = commands.add_parser(
        "watch",
        help="live view of each agent's calls and the switches, 80 columns wide",
        description="Follow the instance's audit trail: each call as it starts and settles,"
        " under its workspace and client, and every hold, kill switch, resume and paused"
        " workspace. Starts no service; Ctrl-C ends it.",
        parents=[instance],
    )
    watch.add_argument(
        "-n", type=arguments.count, default=HISTORY,
        help=f"how many recorded calls and events to show first (default {HISTORY})",
    )  # fmt: skip


def run(endpoints: Endpoints, count: int, out: TextIO | None = None) -> int:
    """Print the history, then each new record, until Ctrl-C (which ``main`` turns into 130,
    as for ``audit tail -f``)."""
    out = sys.stdout if out is None else out
    colour = out.isatty()
    lines = Lines()
    for record in followed(endpoints.audit_file, count, Skipped()):
        for line in lines.of(record):
            print(_painted(line, record) if colour else line, file=out, flush=True)
    return 0  # not reached: following ends with Ctrl-C (or the reader going away)


def _painted(line: str, record: dict[str, Any]) -> str:
    """A line with colour for a terminal (measured before, so it still fits 80 columns)."""
    if not is_call(record):
        return _BOLD + _YELLOW + line + _RESET
    if not line.startswith(" "):  # the heading above a workspace's calls
        return _BOLD + line + _RESET
    said = outcome(record)
    if said in ("denied", "held", "error"):
        return _RED + line + _RESET
    if said in ("cancelled", "outcome unknown"):
        return _YELLOW + line + _RESET
    return _DIM + line + _RESET if said == STARTED else line
