"""Where the clients with a choice of file keep it: the variable that moves a client's
directory, and the file name a client already uses winning over the one install would create."""

from __future__ import annotations

from pathlib import Path

import pytest

from ghostlight_trio.install import clients
from ghostlight_trio.install.places import Place


def test_copilot_home_moves_the_copilot_cli_file(
    place: Place, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = clients.client("copilot-cli")
    monkeypatch.delenv("COPILOT_HOME", raising=False)
    assert target.path(place) == place.home / ".copilot" / "mcp-config.json"
    monkeypatch.setenv("COPILOT_HOME", str(tmp_path / "cp"))
    assert target.path(place) == tmp_path / "cp" / "mcp-config.json"


def test_kilo_writes_kilo_jsonc_unless_a_kilo_json_is_there(place: Place) -> None:
    target = clients.client("kilo-code")
    directory = place.xdg_config / "kilo"
    assert target.path(place) == directory / "kilo.jsonc"
    directory.mkdir(parents=True)
    (directory / "kilo.json").write_text("{}\n")
    assert target.path(place) == directory / "kilo.json"


@pytest.mark.parametrize("client_id", ["cline", "roo-code"])
def test_vscode_extensions_keep_theirs_in_vscode_global_storage(client_id: str, place: Place) -> None:
    path = clients.client(client_id).path(place)
    assert path.is_relative_to(place.app_config / "Code" / "User" / "globalStorage")
    assert path.parent.name == "settings"
