"""What an installation registers: names per instance, the executables, the pinned environment."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from ..transport.endpoints import DEFAULT_INSTANCE, HOME_ENV, INSTANCE_ENV, Endpoints

MCP_CONNECTOR = "ghostlight-mcp-connector"
BROWSER_CONNECTOR = "ghostlight-browser-connector"


def server_name(instance: str) -> str:
    """The name clients list the server under: ``ghostlight`` or ``ghostlight-NAME``."""
    return "ghostlight" if instance == DEFAULT_INSTANCE else f"ghostlight-{instance}"


def find_executable(name: str) -> Path | None:
    """The console script beside this interpreter (the same install), else one on PATH."""
    sibling = Path(sys.executable).parent / name
    if sibling.is_file() and os.access(sibling, os.X_OK):
        return sibling
    found = shutil.which(name)
    return Path(found) if found else None


def connector_args(endpoints: Endpoints) -> list[str]:
    return [] if endpoints.instance == DEFAULT_INSTANCE else ["--instance", endpoints.instance]


def pinned_env() -> dict[str, str]:
    """Environment a registration must carry so it finds this install's data root."""
    return {HOME_ENV: os.environ[HOME_ENV]} if os.environ.get(HOME_ENV) else {}


def needs_wrapper(endpoints: Endpoints) -> bool:
    """Native host manifests cannot pass arguments or environment; a wrapper script can."""
    return endpoints.instance != DEFAULT_INSTANCE or bool(pinned_env())


def wrapper_path(endpoints: Endpoints) -> Path:
    return endpoints.data_dir / "native-host" / "installed-browser-connector"


def wrapper_script(endpoints: Endpoints, connector: Path) -> str:
    """A shell script that pins the instance (and data root) and runs the browser connector."""
    import shlex

    exports = {INSTANCE_ENV: endpoints.instance, **pinned_env()}
    lines = ["#!/bin/sh", f"# Ghostlight native host for instance {endpoints.instance!r}."]
    lines += [f"export {key}={shlex.quote(value)}" for key, value in exports.items()]
    lines.append(f'exec {shlex.quote(str(connector))} "$@"')
    return "\n".join(lines) + "\n"
