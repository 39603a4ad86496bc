"""Fixtures for the MCP edge: an isolated instance with a running service per test session."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .harness import Instance


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
