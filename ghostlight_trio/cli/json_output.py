"""The ``--json`` contract shared by every command a script calls: stdout holds one JSON object
and nothing else; the exit code is the one the command has without ``--json``; a failure
carries an ``error`` sentence. Prose a command would print is kept out of stdout."""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
from collections.abc import Callable
from typing import Any

HELP = "print one JSON object on stdout (with an 'error' field when the command fails)"


def add_option(parser: argparse.ArgumentParser, text: str = HELP) -> None:
    parser.add_argument("--json", action="store_true", help=text)


def emit(body: dict[str, Any]) -> None:
    print(json.dumps(body, indent=2, default=str))


def error(message: str, **fields: Any) -> None:
    """A failure as JSON: ``{"error": message, ...}``."""
    emit({"error": message, **fields})


def refuse(problem: str, as_json: bool) -> int:
    """A command's refusal: the JSON error form when asked for, the sentence on stderr always;
    exit 1."""
    if as_json:
        error(problem)
    print(f"ghostlight: {problem}", file=sys.stderr)
    return 1


def captured(run: Callable[[], int], **fields: Any) -> int:
    """Run a command that speaks prose and report it as one JSON object: what it printed on
    stdout as ``message``, its notes from stderr as ``notes``, and on failure an ``error``
    (its last note, else its message)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = run()
    message = out.getvalue().strip()
    notes = [_plain(line) for line in err.getvalue().splitlines() if line.strip()]
    body: dict[str, Any] = {**fields, "ok": code == 0, "exit_code": code, "message": message}
    if notes:
        body["notes"] = notes
    if code != 0:
        body["error"] = notes[-1] if notes else message or f"exit code {code}"
    emit(body)
    for note in notes:  # a person watching the script still sees them
        print(f"ghostlight: {note}", file=sys.stderr)
    return code


def _plain(line: str) -> str:
    return line.removeprefix("ghostlight: ").strip()
