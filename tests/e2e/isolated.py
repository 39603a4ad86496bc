"""The environment a person's shell gives the real CLI, isolated: a HOME of its own, a short
TMPDIR (Chromium's and the instance's socket paths must fit), and none of the GHOSTLIGHT_*
variables a test run sets but the directory its MCP conversations are recorded in (held to the
official schema afterwards: ``tests/conftest.py``)."""

from __future__ import annotations

import os
from pathlib import Path

from ghostlight_trio.cli.mcp_client import WIRE_LOG_ENV


def cli_env(
    home: Path, tmp: Path, *, without: tuple[str, ...] = ("XDG_RUNTIME_DIR",)
) -> dict[str, str]:
    """This process's environment for a CLI run under ``home`` and ``tmp``, less ``without``."""
    env = {
        key: value
        for key, value in os.environ.items()
        if (not key.startswith("GHOSTLIGHT_") or key == WIRE_LOG_ENV) and key not in without
    }
    env.update(HOME=str(home), TMPDIR=str(tmp))
    return env
