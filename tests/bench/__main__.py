"""``nox -s bench``: every benchmark, each printed beside its baseline from the same run."""

from __future__ import annotations

import sys

from . import bridge_bench, edge_bench, governance_bench, navigate_bench, snapshot_bench

SECTIONS = {
    "bridge": bridge_bench.run,
    "edge": edge_bench.run,
    "navigate": navigate_bench.run,
    "governance": governance_bench.run,
    "snapshot": snapshot_bench.run,
}


def main(argv: list[str]) -> None:
    chosen = argv or list(SECTIONS)
    for name in chosen:
        SECTIONS[name]()


if __name__ == "__main__":
    main(sys.argv[1:])
