"""The user's own safety settings, independent of any manifest: never-touch sites and redaction.

A flat JSON object (``<instance data dir>/config.json``, or the file named by
``GHOSTLIGHT_USER_CONFIG``). Unlike a manifest, a bad entry is dropped with a warning and the
rest still applies, so one typo never switches the never-touch list off.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import attrs

from ..files.safe import UnsafeFile, read_regular
from ..untrusted.unicode import escapes_lone_surrogate
from .hosts import HostPattern, PatternError

SETTINGS_ENV = "GHOSTLIGHT_USER_CONFIG"

MAX_SETTINGS_BYTES = 1024 * 1024
"""Far past any real settings file; a larger one is refused unread."""


@attrs.frozen
class Settings:
    never_touch: tuple[HostPattern, ...] = ()
    redact_secrets: bool = True
    warnings: tuple[str, ...] = ()
    unreadable: str = ""
    """Why the file could not be read as settings at all (then the last good ones stand)."""


def parse_settings(value: Any, *, source: str = "config") -> Settings:
    if not isinstance(value, dict):
        return Settings(warnings=(f"{source}: must be a JSON object; ignored",))
    warnings: list[str] = []
    never_touch: list[HostPattern] = []
    raw_never_touch = value.get("sacred_domains", [])
    if isinstance(raw_never_touch, list):
        for index, item in enumerate(raw_never_touch):
            try:
                never_touch.append(HostPattern.parse(item))
            except PatternError as exc:
                warnings.append(f"{source}: sacred_domains[{index}]: {exc}; ignored")
    else:
        warnings.append(f"{source}: sacred_domains must be a list; ignored")
    redact = value.get("redact_secrets", True)
    if not isinstance(redact, bool):
        warnings.append(f"{source}: redact_secrets must be true or false; kept true")
        redact = True
    for key in value:
        if key not in ("sacred_domains", "redact_secrets"):
            warnings.append(f"{source}: unknown setting {key!r}; ignored")
    return Settings(never_touch=tuple(never_touch), redact_secrets=redact, warnings=tuple(warnings))


def load_settings(path: Path) -> Settings:
    """Missing file: defaults. Unreadable JSON: defaults plus a warning. Only the user's own
    regular file is read (never a link, a FIFO, a device), and never past its bound."""
    try:
        data = read_regular(path, limit=MAX_SETTINGS_BYTES)
        if data is None:
            return Settings()
        text = data.decode("utf-8")
    except UnsafeFile as exc:
        return _unreadable(str(exc))
    except (OSError, UnicodeDecodeError) as exc:
        return _unreadable(f"{path}: cannot read: {exc}")
    try:
        value = json.loads(text)
        if escapes_lone_surrogate(text, value):
            return _unreadable(f"{path}: a \\u escape names half a surrogate pair")
    except json.JSONDecodeError as exc:
        return _unreadable(f"{path}: line {exc.lineno} column {exc.colno}: {exc.msg}")
    except RecursionError:
        return _unreadable(f"{path}: arrays and objects nest too deeply to read")
    if not isinstance(value, dict):
        return _unreadable(f"{path}: must be a JSON object")
    return parse_settings(value, source=str(path))


def _unreadable(why: str) -> Settings:
    return Settings(warnings=(why,), unreadable=why)
