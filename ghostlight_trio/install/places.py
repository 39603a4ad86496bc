"""Where per-user configuration lives on this machine (Linux and macOS), from one ``Place``.

Tests build a ``Place`` around a temporary home; nothing else reads ``$HOME`` directly.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import attrs


@attrs.frozen
class Place:
    home: Path
    platform: str  # "linux" or "darwin"
    xdg_config: Path
    path_env: str = ""

    @classmethod
    def current(cls) -> Place:
        home = Path(os.environ.get("HOME") or Path.home())
        xdg = os.environ.get("XDG_CONFIG_HOME")
        return cls(
            home=home,
            platform="darwin" if sys.platform == "darwin" else "linux",
            xdg_config=Path(xdg) if xdg else home / ".config",
            path_env=os.environ.get("PATH", ""),
        )

    @property
    def app_config(self) -> Path:
        """Where desktop apps keep settings: XDG config on Linux, Application Support on macOS."""
        if self.platform == "darwin":
            return self.home / "Library" / "Application Support"
        return self.xdg_config

    def which(self, name: str) -> str | None:
        return shutil.which(name, path=self.path_env) if self.path_env else None
