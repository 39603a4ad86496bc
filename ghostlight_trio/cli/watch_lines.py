"""The lines ``ghostlight watch`` prints: audit records as a person reads them, 80 columns.

A call shows as it starts (its ``dispatched`` event) and as it settles, under a heading that
names its workspace and client; a switch (hold, kill switch, resume, a paused workspace) is a
line of its own. Every line is cut with an ellipsis rather than wrapped, so a narrow terminal
never scrolls one call onto two rows.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from ..audit.records import DISPATCHED
from .audit_command import printable

WIDTH = 80

OUTCOMES = {
    "ok": "ok",
    "denied": "denied",
    "held": "held",
    "tool_error": "error",
    "invalid": "error",
    "error": "error",
    "cancelled": "cancelled",
    "outcome_unknown": "outcome unknown",
}
"""What a person reads for each recorded outcome; any other is shown as recorded."""

STARTED = "started"

_TIME, _WHAT, _HOST, _OUTCOME, _DURATION = 8, 24, 18, 15, 6
"""Column widths of a call line: 2 + 8 + 2 + 24 + 2 + 18 + 2 + 15 + 1 + 6 = 80."""


def _event_text(event: str, record: dict[str, Any]) -> str:
    workspace = _text(record.get("workspace")) or "a workspace"
    texts = {
        "hold": "HOLD: agents' browser calls wait until resume",
        "panic": "KILL SWITCH engaged: browser work stopped until resume",
        "resume": "RESUMED: hold and kill switch released",
        "resume_workspace": f"RESUMED workspace {workspace}",
        "attention_opened": f"PAUSED workspace {workspace}: repeated denials",
        "attention_carried": f"PAUSED workspace {workspace}: its client has a paused one",
        "policy": "policy reloaded",
        "audit_resumed": f"audit trail written again ({_text(record.get('lost')) or 0} lost)",
    }
    return texts.get(event, f"[{event}]" + (f" {workspace}" if "workspace" in record else ""))


def _text(value: object) -> str:
    """A recorded value as a terminal may show it (see ``printable``); empty when absent."""
    return "" if value is None else printable(str(value))


def fit(text: str, width: int) -> str:
    """``text`` in at most ``width`` columns: cut with an ellipsis when longer."""
    return text if len(text) <= width else text[: width - 1] + "…"


def clock(stamp: object, zone: dt.tzinfo | None = None) -> str:
    """A record's time as ``HH:MM:SS`` in ``zone`` (local time when None); ``??:??:??`` when it
    has none that reads."""
    try:
        moment = dt.datetime.fromisoformat(str(stamp))
    except ValueError:
        return "??:??:??"
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.UTC)
    return moment.astimezone(zone).strftime("%H:%M:%S")


def duration(millis: object) -> str:
    """A duration in at most six columns: ``850ms``, ``12.3s``, ``4m05s``; empty when unknown."""
    if not isinstance(millis, int | float) or isinstance(millis, bool) or millis < 0:
        return ""
    if millis < 1000:
        return f"{millis:.0f}ms"
    seconds = millis / 1000
    if seconds < 100:
        return f"{seconds:.1f}s"
    minutes, rest = divmod(int(seconds), 60)
    return f"{minutes}m{rest:02d}s" if minutes < 100 else f"{minutes // 60}h"


def outcome(record: dict[str, Any]) -> str:
    """What became of the call: ``started`` while in flight, else its outcome in words."""
    if record.get("event") == DISPATCHED:
        return STARTED
    recorded = _text(record.get("outcome"))
    return OUTCOMES.get(recorded, recorded or "?")


def heading(record: dict[str, Any]) -> str:
    """The line above a workspace's calls: its name as audit gives it, and the client's label."""
    workspace = _text(record.get("workspace")) or "(no workspace)"
    client = _text(record.get("client")) or "(no client label)"
    return fit(f"{workspace}  {client}", WIDTH)


def call_line(record: dict[str, Any], zone: dt.tzinfo | None = None) -> str:
    """One call as it starts or settles: time, tool and action, host, outcome, duration."""
    what = " ".join(filter(None, (_text(record.get("tool")), _text(record.get("action")))))
    cells = (
        clock(record.get("time"), zone).ljust(_TIME),
        fit(what or "?", _WHAT).ljust(_WHAT),
        fit(_text(record.get("host")) or "-", _HOST).ljust(_HOST),
        fit(outcome(record), _OUTCOME).ljust(_OUTCOME),
    )
    ended = "" if record.get("event") == DISPATCHED else duration(record.get("duration_ms"))
    line = "  " + "  ".join(cells) + " " + ended.rjust(_DURATION)
    return fit(line.rstrip(), WIDTH)


def event_line(record: dict[str, Any], zone: dt.tzinfo | None = None) -> str:
    """A switch or other event, on a line of its own."""
    text = _event_text(_text(record.get("event")), record)
    return fit(f"{clock(record.get('time'), zone)}  * {text}", WIDTH)


def is_call(record: dict[str, Any]) -> bool:
    """A call's record or its ``dispatched`` event (the others are events of their own)."""
    return "event" not in record or record["event"] == DISPATCHED


class Lines:
    """Records to lines, with a heading whenever the workspace changes (and after an event),
    so each run of one workspace's calls reads under its name."""

    def __init__(self, zone: dt.tzinfo | None = None) -> None:
        self._zone = zone
        self._under: tuple[str, str] | None = None

    def of(self, record: dict[str, Any]) -> list[str]:
        if not is_call(record):
            self._under = None
            return [event_line(record, self._zone)]
        key = (_text(record.get("workspace")), _text(record.get("client")))
        lines = [] if key == self._under else [heading(record)]
        self._under = key
        return [*lines, call_line(record, self._zone)]
