"""A browser is found where it installs, not only by the names on PATH."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from ghostlight_trio.browser import discovery, managed
from ghostlight_trio.cli.doctor_checks import browsers_found


def _install(path: Path, *, executable: bool = True) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n")
    path.chmod(stat.S_IRWXU if executable else stat.S_IRUSR | stat.S_IWUSR)
    return path


@pytest.fixture
def no_path(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Nothing on PATH, as on a Mac."""
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))


def test_macos_app_bundles_are_found_in_both_applications_folders(tmp_path: Path, no_path: None) -> None:
    root, home = tmp_path / "root", tmp_path / "home"
    edge = _install(home / "Applications/Microsoft Edge.app/Contents/MacOS/Microsoft Edge")
    chrome = _install(root / "Applications/Google Chrome.app/Contents/MacOS/Google Chrome")
    assert discovery.installed_browsers("darwin", home, root=root) == [chrome, edge]


def test_linux_opt_snap_and_flatpak_places_are_found_chromium_first(tmp_path: Path, no_path: None) -> None:
    root, home = tmp_path / "root", tmp_path / "home"
    chrome = _install(root / "opt/google/chrome/chrome")
    flatpak = _install(home / ".local/share/flatpak/exports/bin/org.chromium.Chromium")
    _install(root / "opt/brave.com/brave/brave", executable=False)  # not runnable: skipped
    assert discovery.installed_browsers("linux", home, root=root) == [flatpak, chrome]


def test_a_name_on_path_comes_before_the_install_places(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bin_dir, root, home = tmp_path / "bin", tmp_path / "root", tmp_path / "home"
    brave = _install(bin_dir / "brave-browser")
    snap = _install(root / "snap/bin/chromium")
    monkeypatch.setenv("PATH", str(bin_dir))
    assert discovery.installed_browsers("linux", home, root=root) == [brave, snap]


def test_find_browser_uses_the_install_places_and_says_where_it_looked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_path: None
) -> None:
    monkeypatch.setattr(discovery, "install_places", lambda *a, **k: [tmp_path / "none"])
    with pytest.raises(managed.ManagedBrowserError, match="where Chrome, Chromium, Edge and Brave install"):
        managed.find_browser()
    edge = _install(tmp_path / "opt/microsoft/msedge/msedge")
    monkeypatch.setattr(discovery, "install_places", lambda *a, **k: [edge])
    assert managed.find_browser() == edge
    assert managed.find_browser(str(edge)) == edge  # an explicit path still wins


def test_doctor_lists_what_it_found_and_warns_when_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_path: None
) -> None:
    monkeypatch.setattr(discovery, "install_places", lambda *a, **k: [])
    (row,) = browsers_found()
    assert row.verdict == "warn" and "apt install chromium" in row.fix
    first = _install(tmp_path / "a/chromium")
    second = _install(tmp_path / "b/chrome")
    monkeypatch.setattr(discovery, "install_places", lambda *a, **k: [first, second])
    rows = browsers_found()
    assert [(r.verdict, r.detail.split(" ")[0]) for r in rows] == [("ok", str(first)), ("info", str(second))]
    assert os.access(first, os.X_OK)
