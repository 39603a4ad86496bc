"""Fixtures for the MCP edge: an isolated instance with a running service per test session."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .harness import Instance, service_kind


@pytest.fixture(scope="session")
def shared_instance(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Instance]:
    instance = Instance(tmp_path_factory.mktemp("edge-shared"))
    instance.start_service()
    yield instance
    instance.stop_service()
    instance.stop_launched_services()


@pytest.fixture
def own_instance(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Instance]:
    """A fresh instance whose service the test starts (and may kill) itself."""
    instance = Instance(tmp_path_factory.mktemp("edge-own"))
    yield instance
    instance.kill_service()
    instance.stop_launched_services()


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """One line for the conformance transcripts of the run: how many ran, and against which
    service kind (``nox -s transcripts``: every one, against the real service)."""
    found: dict[str, set[str]] = {}
    for outcome in ("passed", "failed", "skipped", "error"):
        for report in terminalreporter.stats.get(outcome, []):
            nodeid = getattr(report, "nodeid", "")
            if "test_transcripts.py::test_transcript[" in nodeid:
                found.setdefault(outcome, set()).add(nodeid)
    if not found:
        return
    run = len(found.get("passed", set()) | found.get("failed", set()))
    terminalreporter.write_line(
        f"transcripts against the {service_kind()} service: {run} run"
        f" ({len(found.get('failed', ()))} failed), {len(found.get('skipped', ()))} skipped,"
        f" {len(found.get('error', ()))} errors"
    )
