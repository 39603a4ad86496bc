"""A private home for each install test: the clients' and browsers' files go there."""

from __future__ import annotations

from pathlib import Path

import pytest

from ghostlight_trio.install.places import Place


@pytest.fixture
def place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Place:
    home = tmp_path / "user"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.delenv("CODEX_HOME", raising=False)
    return Place(home=home, platform="linux", xdg_config=home / ".config", path_env="")
