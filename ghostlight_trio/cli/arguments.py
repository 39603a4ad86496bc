"""Argument types shared by the subcommands: a bad number is a usage error naming it, never a
traceback or a silently odd run."""

from __future__ import annotations

import argparse
import math


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
