"""A private home for each install test: the clients' and browsers' files go there."""

from __future__ import annotations

from pathlib import Path

import pytest

from ghostlight_trio.install.changes import apply
from ghostlight_trio.install.places import Place
from ghostlight_trio.install.plan import Options, plan_install
from ghostlight_trio.transport.endpoints import Endpoints

from .helpers import EXT_ID


@pytest.fixture
def place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Place:
    home = tmp_path / "user"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.delenv("CODEX_HOME", raising=False)
    return Place(home=home, platform="linux", xdg_config=home / ".config", path_env="")


@pytest.fixture
def installed(place: Place, endpoints: Endpoints) -> Place:
    """``place`` with a client and a browser registered, as `ghostlight install` leaves it."""
    options = Options(clients=("cursor",), browsers=("chromium",), extension_ids=(EXT_ID,))
    for action in plan_install(place, endpoints, options):
        if action.change is not None:
            apply(action.change)
    return place
