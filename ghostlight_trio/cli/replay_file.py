"""What ``ghostlight replay`` reads: a script ``record_actions`` exported, and the values its
placeholders ask for. Pure: the file is checked and filled before anything starts."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

PLACEHOLDER = re.compile(r"\{\{secret:([A-Za-z0-9_]+)\}\}")
FILLED_KEYS = ("value", "text")
"""The arguments a placeholder may stand in (typed values); a name the page chose never is."""


class ReplayFileError(ValueError):
    """The file is no exported script, or a value it needs was not given."""


def read_steps(path: Path) -> list[dict[str, Any]]:
    """The steps of an exported script: ``{"steps": [...]}`` (the export's own shape, or the
    whole structured answer of an export) or a bare list of steps."""
    try:
        loaded = json.loads(path.read_text("utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise ReplayFileError(f"cannot read {path}: {exc}") from None
    except json.JSONDecodeError as exc:
        raise ReplayFileError(f"{path} is not JSON ({exc.msg} at line {exc.lineno})") from None
    steps = loaded.get("steps") if isinstance(loaded, dict) else loaded
    if not isinstance(steps, list) or not steps:
        raise ReplayFileError(f"{path} holds no steps: export one with record_actions (format script)")
    for number, step in enumerate(steps, 1):
        if not (isinstance(step, dict) and isinstance(step.get("tool"), str)
                and isinstance(step.get("args", {}), dict)):  # fmt: skip
            raise ReplayFileError(f"step {number} of {path} is not {{\"tool\": ..., \"args\": {{...}}}}")
    return steps


def parse_values(given: Sequence[str]) -> dict[str, str]:
    """``NAME=VALUE`` pairs, as ``--value`` takes them."""
    values: dict[str, str] = {}
    for pair in given:
        name, sep, value = pair.partition("=")
        if not sep or not re.fullmatch(r"[A-Za-z0-9_]+", name):
            raise ReplayFileError(f"--value takes NAME=VALUE (NAME as the placeholder spells it), not {pair!r}")
        values[name.upper()] = value
    return values


def needed(steps: Sequence[Mapping[str, Any]]) -> list[str]:
    """The placeholders' names, in first use order."""
    names = []
    for step in steps:
        for _, value in _filled(step):
            match = PLACEHOLDER.fullmatch(value)
            if match:
                names.append(match.group(1).upper())
    return list(dict.fromkeys(names))


def fill(steps: Sequence[Mapping[str, Any]], values: Mapping[str, str]) -> list[dict[str, Any]]:
    """The steps with each placeholder replaced by its value; refused when one is missing."""
    missing = [name for name in needed(steps) if name not in values]
    if missing:
        flags = " ".join(f"--value {name}=..." for name in missing)
        raise ReplayFileError(f"the script needs values for {', '.join(missing)}: give {flags}")
    out = []
    for step in steps:
        args = dict(step.get("args", {}))
        for key in FILLED_KEYS:
            if key in args:
                args[key] = _secret(args[key], values)
        fields = args.get("fields")
        if isinstance(fields, dict):
            args["fields"] = {
                label: _secret(item, values) for label, item in fields.items()
            }
        out.append({**step, "args": args})
    return out


def _filled(step: Mapping[str, Any]) -> list[tuple[str, str]]:
    args = step.get("args", {})
    pairs = [(key, args[key]) for key in FILLED_KEYS if isinstance(args.get(key), str)]
    fields = args.get("fields")
    if isinstance(fields, dict):
        pairs += [("fields", item) for item in fields.values() if isinstance(item, str)]
    return pairs


def _secret(item: Any, values: Mapping[str, str]) -> Any:
    match = PLACEHOLDER.fullmatch(item) if isinstance(item, str) else None
    return values[match.group(1).upper()] if match else item
