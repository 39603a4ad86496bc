"""Argument types shared by the subcommands: a bad number is a usage error naming it, never a
traceback or a silently odd run."""

from __future__ import annotations

import argparse
import math
import re


def seconds(text: str) -> float:
    """A positive number of seconds (``inf`` waits forever)."""
    value = _number(text)
    if not value > 0:  # also refuses nan
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive number of seconds")
    return value


def wait_seconds(text: str) -> float:
    """Zero (do not wait) or a positive number of seconds."""
    value = _number(text)
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds (0 or more)")
    return value


def count(text: str) -> int:
    """How many lines or records: 0 or more."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a count (0 or more)")
    return value


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        return math.nan


_RFC3339_PREFIX = re.compile(
    r"\d{4}(-\d{2}(-\d{2}([T ]\d{2}(:\d{2}(:\d{2}(\.\d+)?)?)?)?)?)?(Z|[+-]\d{2}:\d{2})?"
)
_AGO = re.compile(r"\d+[smhd]")


def when(text: str) -> str:
    """An argument type for --since/--until: a time ago or an RFC 3339 time (prefix), else a
    clear refusal (a filter that cannot be read must not quietly match nothing or everything)."""
    if _AGO.fullmatch(text) or _RFC3339_PREFIX.fullmatch(text):
        return text.replace(" ", "T")
    raise argparse.ArgumentTypeError(
        f"{text!r} is not a time: use 15m, 2h or 3d (that long ago) or an RFC 3339 time such"
        " as 2026-11-30 or 2026-11-30T14:05"
    )
