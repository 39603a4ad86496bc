"""Every service logger sits under ``ghostlight``, the one logger the service configures: a
logger named after its module (``ghostlight_trio.…``) would write nowhere the user looks
(``ghostlight logs``), or bare and undated to stderr."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LOGGER = re.compile(r"getLogger\(([^)]*)\)")
ALLOWED = re.compile(r"""^["']ghostlight(\.[a-z_.]+)?["']$""")


def test_every_service_logger_is_under_the_configured_one() -> None:
    offenders, seen = [], 0
    for path in (ROOT / "ghostlight_trio").rglob("*.py"):
        for number, line in enumerate(path.read_text("utf-8").splitlines(), 1):
            for name in LOGGER.findall(line):
                seen += 1
                if not ALLOWED.match(name.strip()):
                    offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert seen >= 10
    assert not offenders, "loggers outside 'ghostlight':\n" + "\n".join(offenders)
