"""Shared fixtures: every test that touches endpoints gets its own private instance."""

from __future__ import annotations

import os
import uuid
from pathlib import Path

import pytest

from ghostlight_trio.transport.endpoints import Endpoints


@pytest.fixture
def instance_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """A private instance: its own runtime dir, data dir and name, exported to the environment."""
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    values = {
        "GHOSTLIGHT_INSTANCE": "t" + uuid.uuid4().hex[:10],
        "GHOSTLIGHT_HOME": str(tmp_path / "home"),
        "XDG_RUNTIME_DIR": str(runtime),
    }
    for key, value in values.items():
        monkeypatch.setenv(key, value)
    return {**os.environ, **values}


@pytest.fixture
def endpoints(instance_env: dict[str, str]) -> Endpoints:
    return Endpoints.for_instance()
