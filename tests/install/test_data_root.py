"""The data root a registration starts its process with is the one the installing shell uses.

A GUI client starts the connector (and a browser the native host) with ``HOME`` but without
what a shell rc file sets, such as ``XDG_DATA_HOME``. Install pins the root whenever that
would move it; doctor compares each registration's root with its own."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ghostlight_trio.cli.doctor import collect
from ghostlight_trio.install import clients, hosts, jsonc
from ghostlight_trio.install.identity import (
    bare_data_root,
    pinned_env,
    server_name,
    wrapper_path,
)
from ghostlight_trio.install.places import Place
from ghostlight_trio.install.plan import Options, plan_install
from ghostlight_trio.transport.endpoints import Endpoints

from .helpers import EXT_ID, apply_all


def row(rows, name: str):
    return next(r for r in rows if r.name == name)


def failures(rows) -> list[str]:
    return [f"{r.section}/{r.name}: {r.detail}" for r in rows if r.verdict == "fail"]


@pytest.fixture
def xdg(place: Place, instance_env: dict[str, str], tmp_path: Path, monkeypatch) -> Path:
    """A shell with XDG_DATA_HOME set (in a shell rc file, say) and no GHOSTLIGHT_HOME."""
    monkeypatch.delenv("GHOSTLIGHT_HOME")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg-data"))
    return tmp_path / "xdg-data" / "ghostlight-trio"


def test_the_root_is_pinned_when_xdg_data_home_moves_it(place: Place, xdg: Path) -> None:
    before = dict(os.environ)
    assert bare_data_root() == place.home / ".local" / "share" / "ghostlight-trio"
    assert dict(os.environ) == before  # asking platformdirs left the environment as it was
    assert pinned_env() == {"GHOSTLIGHT_HOME": str(xdg)}


def test_no_pin_where_the_root_is_the_default(
    place: Place, instance_env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GHOSTLIGHT_HOME")
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    assert pinned_env() == {}
    monkeypatch.setenv("XDG_DATA_HOME", str(place.home / ".local" / "share"))  # the default, named
    assert pinned_env() == {}


def test_a_relative_ghostlight_home_is_pinned_absolute(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GHOSTLIGHT_HOME", "gh")
    assert pinned_env() == {"GHOSTLIGHT_HOME": str(tmp_path / "gh")}


def test_install_under_xdg_pins_clients_and_the_native_host(place: Place, xdg: Path) -> None:
    endpoints = Endpoints.for_instance()
    assert endpoints.data_dir == xdg / "instances" / endpoints.instance
    options = Options(clients=("cursor",), browsers=("chromium",), extension_ids=(EXT_ID,))
    apply_all(plan_install(place, endpoints, options))
    servers = jsonc.loads(clients.client("cursor").path(place).read_text())["mcpServers"]
    assert servers[server_name(endpoints.instance)]["env"] == {"GHOSTLIGHT_HOME": str(xdg)}
    assert f"export GHOSTLIGHT_HOME={xdg}" in wrapper_path(endpoints).read_text()


async def test_doctor_flags_an_entry_that_would_use_another_root(place: Place, xdg: Path) -> None:
    endpoints = Endpoints.for_instance()
    options = Options(clients=("cursor",), browsers=("chromium",), extension_ids=(EXT_ID,))
    apply_all(plan_install(place, endpoints, options))
    rows = await collect(endpoints, place)
    assert failures(rows) == []
    assert row(rows, "Cursor").verdict == "ok" and row(rows, "Chromium").verdict == "ok"

    # The entry as an older install wrote it: no env, so the client uses ~/.local/share.
    path = clients.client("cursor").path(place)
    name = server_name(endpoints.instance)
    entry = jsonc.loads(path.read_text())["mcpServers"][name]
    path.write_text(jsonc.set_member(path.read_text(), ["mcpServers"], name, {**entry, "env": {}}))
    rows = await collect(endpoints, place)
    cursor = row(rows, "Cursor")
    assert cursor.verdict == "fail"
    assert "another data root" in cursor.detail
    assert str(place.home / ".local" / "share" / "ghostlight-trio") in cursor.detail
    assert str(xdg) in cursor.detail and "XDG_DATA_HOME is set" in cursor.detail
    assert cursor.fix.startswith(f"ghostlight install --client cursor --instance {endpoints.instance}")
    assert f"pins GHOSTLIGHT_HOME={xdg}" in cursor.fix


async def test_doctor_flags_an_entry_without_the_ghostlight_home_it_runs_under(
    place: Place, endpoints: Endpoints
) -> None:
    """GHOSTLIGHT_HOME set here, not in the entry: the client would use the default root."""
    apply_all(plan_install(place, endpoints, Options(clients=("cursor",), browsers=())))
    path = clients.client("cursor").path(place)
    name = server_name(endpoints.instance)
    assert row(await collect(endpoints, place), "Cursor").verdict == "ok"
    entry = jsonc.loads(path.read_text())["mcpServers"][name]
    path.write_text(jsonc.set_member(path.read_text(), ["mcpServers"], name, {**entry, "env": {}}))
    cursor = row(await collect(endpoints, place), "Cursor")
    assert cursor.verdict == "fail" and "it sets no GHOSTLIGHT_HOME" in cursor.detail
    assert "GHOSTLIGHT_HOME is set" in cursor.detail


async def test_doctor_flags_a_native_host_pinned_to_another_root(
    place: Place, xdg: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Installed from a shell with XDG_DATA_HOME; doctor from one without it."""
    endpoints = Endpoints.for_instance()
    options = Options(clients=(), browsers=("chromium",), extension_ids=(EXT_ID,))
    apply_all(plan_install(place, endpoints, options))
    monkeypatch.delenv("XDG_DATA_HOME")
    here = Endpoints.for_instance()
    assert here.data_dir != endpoints.data_dir
    chromium = row(await collect(here, place), "Chromium")
    assert chromium.verdict == "fail"
    assert chromium.detail.startswith(f"native host: another data root: its GHOSTLIGHT_HOME pins {xdg}")
    assert chromium.fix.startswith(f"ghostlight install --browser chromium --instance {here.instance}")
    # and that fix works: from here the manifest is rewritten for this root
    apply_all(plan_install(place, here, options))
    chromium = row(await collect(here, place), "Chromium")
    assert chromium.verdict == "ok", chromium
    manifest = hosts.read_manifest(hosts.browser("chromium").manifest_path(place))
    assert manifest is not None and manifest["path"] == str(wrapper_path(here))
