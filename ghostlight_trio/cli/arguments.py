"""Argument types shared by the subcommands: a bad number is a usage error naming it, never a
traceback or a silently odd run. Also how a command the CLI suggests names the instance."""

from __future__ import annotations

import argparse
import datetime as dt
import math
import re
import time

import attrs

from ..transport.endpoints import DEFAULT_INSTANCE, Endpoints


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
    r"(?P<year>\d{4})(-(?P<month>\d{2})(-(?P<day>\d{2})([T ](?P<hour>\d{2})(:(?P<minute>\d{2})"
    r"(:(?P<second>\d{2})(\.(?P<fraction>\d+))?)?)?)?)?)?(?P<zone>Z|[+-]\d{2}:\d{2})?"
)
_AGO = re.compile(r"\d+[smhd]")
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


@attrs.frozen
class TimeBound:
    """A time named on the command line, as the span it names: ``2026-11-30`` is that whole
    day, ``2026-11-30T14:05`` that minute, ``15m`` one instant 15 minutes ago (epoch seconds,
    end exclusive). ``--since`` keeps records from ``start``, ``--until`` up to ``end``."""

    start: float
    end: float


def when(text: str) -> TimeBound:
    """An argument type for --since/--until: a time ago or an RFC 3339 time (prefix; UTC unless
    it carries an offset), else a clear refusal (a filter that cannot be read must not quietly
    match nothing or everything)."""
    ago = _AGO.fullmatch(text)
    if ago:
        instant = time.time() - int(text[:-1]) * _UNITS[text[-1]]
        return TimeBound(instant, instant)
    named = _RFC3339_PREFIX.fullmatch(text)
    bound = _span(named) if named else None
    if bound is None:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a time: use 15m, 2h or 3d (that long ago) or an RFC 3339 time such"
            " as 2026-11-30 or 2026-11-30T14:05 (UTC unless it ends in an offset such as"
            " +02:00)"
        )
    return bound


def _span(named: re.Match[str]) -> TimeBound | None:
    """The span an RFC 3339 prefix names, or None for a date that does not exist."""
    year, month, day, hour, minute, second, fraction, zone = named.group(
        "year", "month", "day", "hour", "minute", "second", "fraction", "zone"
    )
    try:
        offset = dt.UTC
        if zone and zone != "Z":
            sign = -1 if zone[0] == "-" else 1
            shift = dt.timedelta(hours=int(zone[1:3]), minutes=int(zone[4:6]))
            offset = dt.timezone(sign * shift)
        start = dt.datetime(
            int(year), int(month or 1), int(day or 1), int(hour or 0), int(minute or 0),
            int(second or 0), int(((fraction or "0") + "000000")[:6]), tzinfo=offset,
        )  # fmt: skip
    except ValueError:
        return None
    if fraction:
        step = dt.timedelta(microseconds=10 ** (6 - min(len(fraction), 6)))
    elif second:
        step = dt.timedelta(seconds=1)
    elif minute:
        step = dt.timedelta(minutes=1)
    elif hour:
        step = dt.timedelta(hours=1)
    elif day:
        step = dt.timedelta(days=1)
    elif month:
        step = dt.timedelta(days=_days_in(int(year), int(month)))
    else:
        step = dt.timedelta(days=366 if _days_in(int(year), 2) == 29 else 365)
    return TimeBound(start.timestamp(), (start + step).timestamp())


def _days_in(year: int, month: int) -> int:
    following = dt.date(year + month // 12, month % 12 + 1, 1)
    return (following - dt.date(year, month, 1)).days


def instance_flag(endpoints: Endpoints) -> str:
    """`` --instance NAME`` for a command suggested to the user; nothing for the default."""
    return "" if endpoints.instance == DEFAULT_INSTANCE else f" --instance {endpoints.instance}"
