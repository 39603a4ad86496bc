"""An installed package (wheel, ``pip install .``, pipx) carries the browser extension, finds it,
and registers MCP clients even when the extension is missing."""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tarfile
import tomllib
from pathlib import Path

import pytest

from ghostlight_trio.browser import managed
from ghostlight_trio.cli import install_command
from ghostlight_trio.install import clients, hosts
from ghostlight_trio.install.places import Place
from ghostlight_trio.transport.endpoints import Endpoints

from .helpers import EXT_ID

REPO = Path(__file__).resolve().parents[2]

# What the unpacked extension needs to load, relative to its directory.
EXTENSION_MUST_HAVE = (
    "manifest.json", "service-worker.js", "content.js", "extension-id.txt",
    "lib/native-link.js", "page/text.js",
)


def _setuptools_config() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]


def _python_dirs(root: Path) -> set[Path]:
    return {p.parent for p in root.rglob("*.py") if "__pycache__" not in p.parts}


def test_every_python_directory_and_the_extension_are_listed_packages() -> None:
    """The packages are listed by hand (so the extension can be mapped into the package): a new
    subpackage missing from the list would be missing from every wheel."""
    config = _setuptools_config()
    listed = set(config["packages"])
    mapped = config.get("package-dir", {})

    def source_dir(package: str) -> Path:
        parts = package.split(".")
        for cut in range(len(parts), 0, -1):
            prefix = ".".join(parts[:cut])
            if prefix in mapped:
                return REPO / mapped[prefix] / Path(*parts[cut:])
        return REPO / Path(*parts)

    wanted = {
        ".".join(d.relative_to(REPO).parts) for d in _python_dirs(REPO / "ghostlight_trio")
    } | {
        ".".join(d.relative_to(REPO / "connectors").parts)
        for d in _python_dirs(REPO / "connectors")
    }
    assert wanted <= listed, f"add to [tool.setuptools] packages: {sorted(wanted - listed)}"
    extension = REPO / "extension"
    extension_packages = {"ghostlight_trio.extension"} | {
        "ghostlight_trio.extension." + ".".join(d.relative_to(extension).parts)
        for d in extension.rglob("*") if d.is_dir()
    }
    assert extension_packages <= listed, sorted(extension_packages - listed)
    assert source_dir("ghostlight_trio.extension") == extension
    for package in listed:
        assert source_dir(package).is_dir(), package
    assert not (REPO / "ghostlight_trio" / "extension").exists()  # one copy, the repo's


def _copy_source(destination: Path) -> Path:
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", "build")
    destination.mkdir()
    for name in ("ghostlight_trio", "connectors", "extension"):
        shutil.copytree(REPO / name, destination / name, ignore=ignore)
    for name in ("pyproject.toml", "README.md", "MANIFEST.in"):
        if (REPO / name).exists():
            shutil.copy2(REPO / name, destination / name)
    return destination


def _setuptools(cwd: Path, code: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_sdist_and_the_wheel_built_from_it_carry_the_extension(tmp_path: Path) -> None:
    """Build the sdist from a copy of the tree, then the wheel's tree (build_py, what a wheel
    holds) from the unpacked sdist, as pip does for ``pip install ghostlight-trio.tar.gz``."""
    pytest.importorskip("setuptools")
    source = _copy_source(tmp_path / "src")
    dist = tmp_path / "dist"
    _setuptools(source, f"from setuptools import build_meta; build_meta.build_sdist({str(dist)!r})")
    [sdist] = dist.glob("*.tar.gz")
    with tarfile.open(sdist) as archive:
        names = archive.getnames()
        archive.extractall(tmp_path / "unpacked", filter="data")
    top = names[0].split("/")[0]
    for name in EXTENSION_MUST_HAVE:
        assert f"{top}/extension/{name}" in names, name
    lib = tmp_path / "lib"
    _setuptools(
        tmp_path / "unpacked" / top,
        "from setuptools.dist import Distribution\n"
        "from setuptools.config.pyprojecttoml import apply_configuration\n"
        "dist = Distribution()\n"
        "apply_configuration(dist, 'pyproject.toml')\n"
        "dist.script_name = 'setup.py'\n"
        f"dist.get_command_obj('build_py').build_lib = {str(lib)!r}\n"
        "dist.run_command('build_py')\n",
    )
    packaged = lib / "ghostlight_trio" / "extension"
    for name in EXTENSION_MUST_HAVE:
        assert (packaged / name).is_file(), name
    carried = {p.relative_to(packaged) for p in packaged.rglob("*") if p.is_file()}
    in_repo = {
        p.relative_to(REPO / "extension") for p in (REPO / "extension").rglob("*") if p.is_file()
    }
    assert carried == in_repo
    assert (packaged / "extension-id.txt").read_text().strip() == EXT_ID
    assert (lib / "ghostlight_trio" / "catalog" / "tool-catalog.json").is_file()
    assert (lib / "ghostlight_mcp_connector" / "__main__.py").is_file()
    assert (lib / "ghostlight_browser_connector" / "__main__.py").is_file()
    assert not (lib / "extension").exists()  # nothing at the top of site-packages


# -- finding the extension -----------------------------------------------------------------------


def _manifest(directory: Path) -> Path:
    directory.mkdir(parents=True)
    (directory / "manifest.json").write_text("{}")
    return directory


def test_an_installed_package_finds_its_own_copy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "site-packages"
    packaged = _manifest(site / "ghostlight_trio" / "extension")
    _manifest(site / "extension")  # some other distribution's top-level "extension"
    monkeypatch.setattr(managed, "__file__", str(site / "ghostlight_trio" / "browser" / "managed.py"))
    assert managed.default_extension_dir() == packaged


def test_a_checkout_finds_the_repository_extension(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert managed.default_extension_dir() == REPO / "extension"  # this very checkout
    repo = tmp_path / "repo"
    extension = _manifest(repo / "extension")
    (repo / "pyproject.toml").write_text("[project]\n")
    _manifest(repo / "ghostlight_trio" / "extension")  # a stale copy does not shadow it
    monkeypatch.setattr(managed, "__file__", str(repo / "ghostlight_trio" / "browser" / "managed.py"))
    assert managed.default_extension_dir() == extension


def test_missing_everywhere_names_the_packaged_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "site-packages"
    monkeypatch.setattr(managed, "__file__", str(site / "ghostlight_trio" / "browser" / "managed.py"))
    assert managed.default_extension_dir() == site / "ghostlight_trio" / "extension"


# -- a package without the extension still registers clients -----------------------------------


def args(**overrides) -> argparse.Namespace:
    values = dict(
        dry_run=False, client=None, no_clients=False, browser=None, extension_id=None,
        autostart=False, wait=0,
    )
    return argparse.Namespace(**{**values, **overrides})


@pytest.fixture
def no_extension(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    missing = tmp_path / "site-packages" / "ghostlight_trio" / "extension"
    monkeypatch.setattr(managed, "default_extension_dir", lambda: missing)
    return missing


def test_clients_are_registered_without_the_extension(
    place: Place, endpoints: Endpoints, no_extension: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    chromium = hosts.browser("chromium")
    chromium.user_dir(place).mkdir(parents=True)  # a browser is detected
    code = install_command.run(endpoints, args(client=["cursor"]), installing=True)
    out = capsys.readouterr().out
    assert code == 0, out
    servers = json.loads(clients.client("cursor").path(place).read_text())["mcpServers"]
    assert f"ghostlight-{endpoints.instance}" in servers
    assert "[skip]   Browsers (no native host registered for Chromium:" in out
    assert f"{no_extension / 'extension-id.txt'} is missing" in out
    assert "--extension-id ID" in out
    assert "carries no browser extension" in out and "Load unpacked" not in out
    assert not chromium.manifest_path(place).exists()


def test_a_browser_asked_for_without_the_extension_fails_but_clients_still_register(
    place: Place, endpoints: Endpoints, no_extension: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = install_command.run(
        endpoints, args(client=["cursor"], browser=["chromium"]), installing=True
    )
    out = capsys.readouterr().out
    assert code == 1
    assert "[FAIL]   Browsers -> no native host registered for Chromium" in out
    assert clients.client("cursor").path(place).exists()
    assert not hosts.browser("chromium").manifest_path(place).exists()


def test_an_extension_id_named_by_hand_still_registers_the_host(
    place: Place, endpoints: Endpoints, no_extension: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = install_command.run(
        endpoints, args(no_clients=True, browser=["chromium"], extension_id=[EXT_ID]),
        installing=True,
    )
    assert code == 0, capsys.readouterr().out
    manifest = hosts.read_manifest(hosts.browser("chromium").manifest_path(place))
    assert manifest is not None
    assert manifest["allowed_origins"] == [f"chrome-extension://{EXT_ID}/"]
