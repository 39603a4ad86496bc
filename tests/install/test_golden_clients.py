"""Golden files for every client: install on a sample of what a user already has writes
exactly the golden bytes, a second install changes nothing, uninstall gives back the sample,
doctor sees the entry, and ``ghostlight install --dry-run --client ID`` succeeds.

Each ``golden/<id>/before.*`` is a config as the client's documentation shows it (other
servers, other settings, comments where the format allows); ``installed.*`` is that file
after install, with the machine-specific parts written as ``@CONNECTOR@``, ``@INSTANCE@`` and
``@TMP@``. Set ``GHOSTLIGHT_UPDATE_GOLDEN=1`` to rewrite the goldens after a deliberate change.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from ghostlight_trio.cli.doctor_checks import registrations
from ghostlight_trio.cli.main import main
from ghostlight_trio.install import clients
from ghostlight_trio.install.identity import find_executable, server_name
from ghostlight_trio.install.places import Place
from ghostlight_trio.install.plan import Options, plan_install, plan_uninstall
from ghostlight_trio.transport.endpoints import Endpoints

from .helpers import apply_all, only

GOLDEN = Path(__file__).parent / "golden"
CONNECTOR = str(find_executable("ghostlight-mcp-connector"))
UPDATE = os.environ.get("GHOSTLIGHT_UPDATE_GOLDEN") == "1"


def test_at_least_twenty_clients_each_with_a_golden() -> None:
    assert len(clients.CLIENT_IDS) >= 20
    assert sorted(p.name for p in GOLDEN.iterdir()) == sorted(clients.CLIENT_IDS)


def _sample(client_id: str) -> Path:
    (found,) = (GOLDEN / client_id).glob("before.*")
    return found


def _portable(text: str, tmp_path: Path, endpoints: Endpoints) -> str:
    """The installed text with this machine's connector path, temp dir and instance as names."""
    for value, name in (
        (CONNECTOR, "@CONNECTOR@"), (str(tmp_path), "@TMP@"), (endpoints.instance, "@INSTANCE@"),
    ):
        text = text.replace(json.dumps(value)[1:-1], name)
    return text


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Place:
    """A home of the test's own, with no client directory moved by the environment."""
    user = tmp_path / "user"
    user.mkdir()
    monkeypatch.setenv("HOME", str(user))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(user / ".config"))
    for variable in ("CODEX_HOME", "COPILOT_HOME"):
        monkeypatch.delenv(variable, raising=False)
    return Place(home=user, platform="linux", xdg_config=user / ".config", path_env="")


@pytest.mark.parametrize("client_id", clients.CLIENT_IDS)
def test_install_writes_the_golden_bytes_and_uninstall_restores_them(
    client_id: str, home: Place, endpoints: Endpoints, tmp_path: Path
) -> None:
    target = clients.client(client_id)
    sample = _sample(client_id)
    original = sample.read_bytes().decode()
    path = target.path(home)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(original.encode())

    apply_all(plan_install(home, endpoints, only(client_id)))
    installed = path.read_bytes().decode()
    golden = sample.with_name("installed" + sample.suffix)
    if UPDATE:
        golden.write_bytes(_portable(installed, tmp_path, endpoints).encode())
    assert _portable(installed, tmp_path, endpoints) == golden.read_bytes().decode()
    assert list(path.parent.glob(f"{path.name}.ghostlight-backup-*")), "no backup was made"

    again = plan_install(home, endpoints, only(client_id))
    assert not any(a.change and a.change.changes_anything for a in again), again
    assert path.read_bytes().decode() == installed

    rows = [r for r in registrations(home, endpoints) if r.name == target.label]
    assert [r.verdict for r in rows] == ["ok"], rows

    apply_all(plan_uninstall(home, endpoints, Options(clients=(client_id,), browsers=())))
    assert path.read_bytes().decode() == original


@pytest.mark.parametrize("client_id", clients.CLIENT_IDS)
def test_install_into_no_file_then_uninstall_leaves_none(
    client_id: str, home: Place, endpoints: Endpoints
) -> None:
    target = clients.client(client_id)
    path = target.path(home)
    apply_all(plan_install(home, endpoints, only(client_id)))
    assert clients.current_entry(target, home, _name(endpoints)) is not None
    apply_all(plan_uninstall(home, endpoints, Options(clients=(client_id,), browsers=())))
    assert not path.exists()


def _name(endpoints: Endpoints) -> str:
    return server_name(endpoints.instance)


@pytest.mark.parametrize("client_id", clients.CLIENT_IDS)
def test_dry_run_for_each_client_exits_zero_and_writes_nothing(
    client_id: str, home: Place, endpoints: Endpoints, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    target = clients.client(client_id)
    path = target.path(home)
    (target.marker(home) if target.marker else path.parent).mkdir(parents=True, exist_ok=True)
    assert target.detected(home)
    before = sorted(p for p in home.home.rglob("*"))

    code = main(["install", "--dry-run", "--client", client_id])

    out = capsys.readouterr().out
    assert code == 0, out
    assert str(path) in out
    assert sorted(p for p in home.home.rglob("*")) == before
