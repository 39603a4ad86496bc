"""What an installation registers: names per instance, the executables, the pinned environment."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import platformdirs

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


def data_root() -> Path:
    """This process's data root: ``GHOSTLIGHT_HOME``, else platformdirs' user data dir (which
    follows ``XDG_DATA_HOME``). Endpoints keep each instance in ``<root>/instances/NAME``."""
    return Endpoints.for_instance(DEFAULT_INSTANCE).data_dir.parents[1]


def bare_data_root(home: Path | None = None) -> Path:
    """The data root of a process started with ``HOME`` and nothing else.

    That is how a GUI client starts its connector and a browser its native host: without the
    ``XDG_DATA_HOME`` (or ``GHOSTLIGHT_HOME``) a shell's rc file may set. platformdirs reads
    the environment, so it is asked with an environment of ``HOME`` alone, briefly."""
    value = str(home) if home is not None else os.environ.get("HOME")
    saved = dict(os.environ)
    os.environ.clear()
    if value:
        os.environ["HOME"] = value
    try:
        return Path(platformdirs.user_data_dir("ghostlight-trio", appauthor=False))
    finally:
        os.environ.clear()
        os.environ.update(saved)


def same_root(one: str | Path, other: str | Path) -> bool:
    return os.path.realpath(one) == os.path.realpath(other)


def pinned_env() -> dict[str, str]:
    """Environment a registration must carry so it finds this install's data root.

    ``GHOSTLIGHT_HOME`` when it is set; otherwise, when this shell's data root is not the one
    a process with ``HOME`` alone computes (``XDG_DATA_HOME`` set in a shell rc file, say),
    that root all the same: without it a client would use another data dir, with another
    secret, and never reach the service this shell starts."""
    explicit = os.environ.get(HOME_ENV)
    if explicit:
        return {HOME_ENV: os.path.abspath(explicit)}
    root = data_root()
    return {} if same_root(root, bare_data_root()) else {HOME_ENV: str(root)}


def effective_data_root(env: dict[str, str], home: Path | None = None) -> Path:
    """The data root of a process a registration starts with ``env`` on top of ``HOME``."""
    pinned = env.get(HOME_ENV)
    return Path(pinned) if pinned else bare_data_root(home)


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
