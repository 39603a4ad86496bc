"""Where an instance lives: its owner-only runtime directory, sockets, secret and data dir.

Every executable resolves the same ``Endpoints`` from ``--instance`` or ``GHOSTLIGHT_INSTANCE``,
so named instances never touch each other (tests run several side by side).
"""

from __future__ import annotations

import errno
import hashlib
import os
import re
import stat
import tempfile
import warnings
from pathlib import Path

import attrs
import platformdirs

DEFAULT_INSTANCE = "default"
INSTANCE_ENV = "GHOSTLIGHT_INSTANCE"
HOME_ENV = "GHOSTLIGHT_HOME"
"""Overrides the per-user data and config root (tests and portable setups)."""

_INSTANCE_NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,39}")
_SUN_PATH_LIMIT = 100  # sockaddr_un holds 108 bytes on Linux, 104 on macOS; keep a margin


class InstanceNameError(ValueError):
    """The instance name is not a safe short identifier."""


class UnsafeDirectoryError(RuntimeError):
    """An endpoint directory exists but is not private to this user."""


def validate_instance(name: str | None) -> str:
    """Return the instance name to use, or raise with what a valid name looks like."""
    if name is None or name == "":
        return DEFAULT_INSTANCE
    if not _INSTANCE_NAME.fullmatch(name):
        raise InstanceNameError(
            f"invalid instance name {name!r}: use 1-40 characters of a-z, 0-9, '-' or '_',"
            " starting with a letter or digit"
        )
    return name


def resolve_instance(cli_value: str | None = None) -> str:
    """The instance from the command line, else the environment, else the default."""
    return validate_instance(cli_value if cli_value else os.environ.get(INSTANCE_ENV))


@attrs.frozen
class Endpoints:
    """All per-instance paths. Build with ``Endpoints.for_instance``."""

    instance: str
    runtime_dir: Path
    data_dir: Path
    edge_socket: Path
    browser_socket: Path
    lock_file: Path
    secret_file: Path

    @classmethod
    def for_instance(cls, instance: str | None = None) -> Endpoints:
        name = resolve_instance(instance)
        runtime = _runtime_root() / name
        if len(str(runtime / "browser.sock")) > _SUN_PATH_LIMIT:
            runtime = _short_runtime_root(str(runtime)) / name
        data = instances_root() / name
        return cls(
            instance=name,
            runtime_dir=runtime,
            data_dir=data,
            edge_socket=runtime / "edge.sock",
            browser_socket=runtime / "browser.sock",
            lock_file=runtime / "service.lock",
            secret_file=data / "bridge.secret",
        )

    def ensure_private_dirs(self) -> None:
        """Create the runtime and data dirs owner-only (0700); refuse ones others can enter."""
        for directory in (self.runtime_dir, self.data_dir):
            ensure_private_dir(directory)

    @property
    def spawn_lock_file(self) -> Path:
        """Held by whoever is starting the service, so that one start runs at a time."""
        return self.runtime_dir / "spawn.lock"

    @property
    def log_file(self) -> Path:
        return self.data_dir / "service.log"

    @property
    def audit_file(self) -> Path:
        return self.data_dir / "audit.jsonl"


def ensure_private_dir(directory: Path) -> None:
    """Create ``directory`` owner-only (0700) in a parent only its owner can change.

    The parent is always one of ours (``ghostlight-trio``, ``instances``, a short-path root):
    it is made 0700 too, and one that another user owns or may write to is refused or
    tightened, since whoever can write there can swap the directory below it. Neither is
    followed through a symbolic link: a link is refused, never tightened in its target's place.
    """
    parent = directory.parent
    parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    _tighten(parent, 0o022)
    try:
        directory.mkdir(mode=0o700)
    except FileExistsError:
        pass
    _tighten(directory, 0o077)


def _tighten(directory: Path, loose: int) -> None:
    """Check ``directory`` is a real directory of the user's, and take ``loose`` off its mode,
    through a descriptor on the directory itself (so no link is followed in between)."""
    try:
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError as exc:
        if exc.errno not in (errno.ELOOP, errno.ENOTDIR):
            raise
        kind = "a symbolic link" if directory.is_symlink() else "not a directory"
        raise UnsafeDirectoryError(
            f"{directory} is {kind}; Ghostlight keeps its files only in a directory of its own,"
            " never through a link. Remove it (Ghostlight makes the directory again), or point"
            " XDG_RUNTIME_DIR (sockets) or GHOSTLIGHT_HOME (data) at a directory of your own."
        ) from None
    try:
        info = os.fstat(fd)
        if info.st_uid != os.getuid():
            raise UnsafeDirectoryError(
                f"{directory} is owned by uid {info.st_uid}, not by you, so that user could swap"
                " what Ghostlight keeps there. Remove it, or point XDG_RUNTIME_DIR (sockets) or"
                " GHOSTLIGHT_HOME (data) at a directory of your own."
            )
        mode = stat.S_IMODE(info.st_mode)
        if mode & loose:
            os.fchmod(fd, mode & ~loose)
    finally:
        os.close(fd)


def _runtime_root() -> Path:
    xdg = os.environ.get("XDG_RUNTIME_DIR")
    if xdg and Path(xdg).is_dir():
        return Path(xdg) / "ghostlight-trio"
    # Without a usable XDG_RUNTIME_DIR (ssh and cron sessions, containers, clients that start
    # connectors with a trimmed environment) the per-user fallback is the intended place, and
    # every process picks the same one. Recent platformdirs warns about it on stderr, which
    # would put a Python warning in every command's output and every client's server log.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return Path(platformdirs.user_runtime_dir("ghostlight-trio", appauthor=False))


def _short_runtime_root(long_path: str) -> Path:
    digest = hashlib.sha256(long_path.encode()).hexdigest()[:12]
    return Path(tempfile.gettempdir()) / f"glt-{os.getuid()}-{digest}"


def instances_root() -> Path:
    """The directory holding one data directory per instance (what ``ghostlight instances``
    lists)."""
    return _data_root() / "instances"


def _data_root() -> Path:
    home = os.environ.get(HOME_ENV)
    if home:
        return Path(home)
    return Path(platformdirs.user_data_dir("ghostlight-trio", appauthor=False))
