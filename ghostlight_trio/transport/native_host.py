"""Chrome native-messaging host facts shared by the managed browser, the installer and the relay."""

from __future__ import annotations

from pathlib import Path
from typing import Any

NATIVE_HOST_NAME = "io.ghostlight.trio"
"""The host name the extension connects to (hard-coded in the extension)."""


def host_manifest(executable: Path, extension_id: str) -> dict[str, Any]:
    """The JSON manifest Chrome reads to find and admit the native host."""
    return {
        "name": NATIVE_HOST_NAME,
        "description": "Ghostlight browser connector",
        "path": str(executable),
        "type": "stdio",
        "allowed_origins": [f"chrome-extension://{extension_id}/"],
    }
