"""Hypothesis profiles shared by the fuzzers.

``GHOSTLIGHT_FUZZ_PROFILE`` unset: a quick profile for the default test run (a few seconds per
fuzzer). ``GHOSTLIGHT_FUZZ_PROFILE=long`` (``nox -s fuzz``): many more examples and longer
programs.

Failing examples live in ``tests/fuzz/examples/`` (committed) and are replayed first on every
run. Only runs with ``GHOSTLIGHT_FUZZ_SAVE=1`` (``nox -s fuzz`` sets it) write there, so an
ordinary test run never churns the directory; each minimal failing example found so far is also
kept as a plain regression test next to its fuzzer.
"""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

from hypothesis import HealthCheck, settings
from hypothesis.database import (
    DirectoryBasedExampleDatabase,
    ExampleDatabase,
    InMemoryExampleDatabase,
    MultiplexedDatabase,
    ReadOnlyDatabase,
)

EXAMPLES_DIR = Path(__file__).parent / "examples"
PROFILE = os.environ.get("GHOSTLIGHT_FUZZ_PROFILE", "quick")
LONG = PROFILE == "long"

_COMMITTED = DirectoryBasedExampleDatabase(str(EXAMPLES_DIR))
DATABASE: ExampleDatabase = (
    _COMMITTED
    if os.environ.get("GHOSTLIGHT_FUZZ_SAVE") == "1"
    else MultiplexedDatabase(ReadOnlyDatabase(_COMMITTED), InMemoryExampleDatabase())
)

STATS: Counter[str] = Counter()
"""Examples run and invariants checked, per fuzzer; printed at the end of the pytest run."""

INVARIANTS: Counter[str] = Counter()
"""The race harnesses' invariant checks that held, per invariant; printed with their steps."""
BROKEN: Counter[str] = Counter()
"""Those that did not (each fails its example; shrinking a failure breaks some more)."""


def fuzz_settings(*, quick: int, long: int, steps: int | None = None) -> settings:
    """Settings for one fuzzer: ``quick`` examples by default, ``long`` under the long profile."""
    extra = {} if steps is None else {"stateful_step_count": steps * (2 if LONG else 1)}
    return settings(
        max_examples=long if LONG else quick,
        deadline=None,
        database=DATABASE,
        derandomize=False,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
        print_blob=True,
        **extra,
    )
