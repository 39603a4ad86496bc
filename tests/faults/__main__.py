"""``python -m tests.faults [substring ...]``: run the fault matrix and print its table."""

from __future__ import annotations

import logging
import sys

import trio

from .scenarios import SCENARIOS, format_table, run_rows


def main(argv: list[str]) -> int:
    logging.basicConfig(level=logging.WARNING)
    selected = [s for s in SCENARIOS if not argv or any(a.lower() in s[0].lower() for a in argv)]
    rows = trio.run(run_rows, selected)
    print(format_table(rows))
    return 0 if all(row.passed for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
