"""Where a Chromium-family browser is installed, beyond the names on ``PATH``.

On macOS no browser is on ``PATH``: each lives in an app bundle. On Linux, Chrome, Edge and
Brave install under ``/opt``, and snap and flatpak put their launchers in their own folders.
The places are the vendors' standard ones; the first that holds an executable file wins, in
the order below (Chromium first: it honours ``--load-extension``, branded Chrome does not).
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

PATH_NAMES = (
    "chromium",
    "chromium-browser",
    "google-chrome",
    "google-chrome-stable",
    "brave-browser",
    "microsoft-edge",
)
"""Names looked up on ``PATH`` first, in this order."""

LINUX_PLACES = (
    "/snap/bin/chromium",
    "/var/lib/snapd/snap/bin/chromium",
    "/var/lib/flatpak/exports/bin/org.chromium.Chromium",
    "~/.local/share/flatpak/exports/bin/org.chromium.Chromium",
    "/opt/google/chrome/google-chrome",
    "/opt/google/chrome/chrome",
    "/var/lib/flatpak/exports/bin/com.google.Chrome",
    "~/.local/share/flatpak/exports/bin/com.google.Chrome",
    "/opt/brave.com/brave/brave-browser",
    "/opt/brave.com/brave/brave",
    "/var/lib/flatpak/exports/bin/com.brave.Browser",
    "~/.local/share/flatpak/exports/bin/com.brave.Browser",
    "/opt/microsoft/msedge/microsoft-edge",
    "/opt/microsoft/msedge/msedge",
    "/var/lib/flatpak/exports/bin/com.microsoft.Edge",
    "~/.local/share/flatpak/exports/bin/com.microsoft.Edge",
)
"""Linux install places (``~`` is the user's home), Chromium's first."""

MAC_APPS = (
    "Chromium.app/Contents/MacOS/Chromium",
    "Google Chrome.app/Contents/MacOS/Google Chrome",
    "Brave Browser.app/Contents/MacOS/Brave Browser",
    "Microsoft Edge.app/Contents/MacOS/Microsoft Edge",
)
"""Executables inside macOS app bundles, looked for in ``/Applications`` then ``~/Applications``."""


def install_places(
    platform: str = sys.platform, home: Path | None = None, *, root: Path = Path("/")
) -> list[Path]:
    """The standard install places of this platform, in the order they are tried. ``root``
    stands for the file system's root (a test's stand-in); ``home`` for the user's."""
    home = home or Path.home()
    if platform == "darwin":
        folders = (root / "Applications", home / "Applications")
        return [folder / app for folder in folders for app in MAC_APPS]
    return [home / place[2:] if place.startswith("~/") else root / place[1:] for place in LINUX_PLACES]


def installed_browsers(
    platform: str = sys.platform, home: Path | None = None, *, root: Path = Path("/")
) -> list[Path]:
    """Every browser found: ``PATH`` names first, then the install places; each once."""
    on_path = (shutil.which(name) for name in PATH_NAMES)
    found = [Path(path) for path in on_path if path]
    found += [
        place
        for place in install_places(platform, home, root=root)
        if place.is_file() and os.access(place, os.X_OK)
    ]
    return list(dict.fromkeys(found))
