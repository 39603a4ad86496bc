"""What the connector needs when it runs from an MCP bundle rather than an installation.

Claude Desktop starts a bundle's ``server/main.py`` with the system ``python``, where Ghostlight
is not installed; that script puts the bundle's ``lib`` first on ``sys.path`` and calls
``prepare`` before the connector's one entry point (``__main__.main``). The connector starts the
service as ``python -m ghostlight_trio service``, and that process must find the same code, so
``lib`` also goes first on ``PYTHONPATH``. A setting left empty in Claude Desktop (or never
substituted) is dropped, so the product's own default applies rather than an empty name.
"""

from __future__ import annotations

import os

SETTINGS = ("GHOSTLIGHT_INSTANCE", "GHOSTLIGHT_MANIFEST")
"""The variables the bundle's user settings fill (``${user_config.…}`` in its manifest)."""


def prepare(lib: str) -> None:
    """``lib`` first on ``PYTHONPATH`` for the processes the connector starts; empty settings
    dropped."""
    inherited = os.environ.get("PYTHONPATH", "")
    parts = [lib] + [part for part in inherited.split(os.pathsep) if part and part != lib]
    os.environ["PYTHONPATH"] = os.pathsep.join(parts)
    for name in SETTINGS:
        value = os.environ.get(name, "")
        if not value.strip() or value.startswith("${user_config."):
            os.environ.pop(name, None)
