"""``nox -s bench``: every benchmark, each printed beside its baseline from the same run."""

from __future__ import annotations

import argparse
import functools
import sys

from . import (
    bridge_bench,
    edge_bench,
    governance_bench,
    navigate_bench,
    peers_bench,
    snapshot_bench,
)

SECTIONS = {
    "bridge": bridge_bench.run,
    "edge": edge_bench.run,
    "navigate": navigate_bench.run,
    "governance": governance_bench.run,
    "snapshot": snapshot_bench.run,
    "peers": peers_bench.run,
}


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="python -m tests.bench", description=__doc__)
    parser.add_argument(
        "sections", nargs="*", metavar="SECTION",
        help=f"which benchmarks to run: {', '.join(SECTIONS)} (default: all)",
    )  # fmt: skip
    parser.add_argument(
        "--rounds", type=int, default=peers_bench.ROUNDS, metavar="N",
        help=f"peers: timed calls per operation and contender, after warm-up (default {peers_bench.ROUNDS})",
    )  # fmt: skip
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    sections = {**SECTIONS, "peers": functools.partial(peers_bench.run, rounds=args.rounds)}
    chosen = args.sections or list(SECTIONS)
    unknown = [name for name in chosen if name not in SECTIONS]
    if unknown:
        parser.error(f"no benchmark named {', '.join(unknown)}; choose from {', '.join(SECTIONS)}")
    for name in chosen:
        sections[name]()


if __name__ == "__main__":
    main(sys.argv[1:])
