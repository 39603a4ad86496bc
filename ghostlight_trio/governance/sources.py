"""Where policy comes from and how it is (re)loaded, keeping the last good version of each.

Tiers: the machine-wide org file (fixed path, not overridable per user or instance), the user
manifest (``--manifest`` / ``GHOSTLIGHT_MANIFEST``), and the user's settings. A source that
fails to parse at reload keeps its last good version and the problem is logged; a missing file
means that tier is absent.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

import attrs

from .hosts import HostPattern
from .manifest import Manifest, ManifestError, canonical_hash, load_manifest
from .settings import SETTINGS_ENV, Settings, load_settings

log = logging.getLogger("ghostlight.governance")

ORG_POLICY_PATH = Path("/etc/ghostlight/policy.json")
MANIFEST_ENV = "GHOSTLIGHT_MANIFEST"


MANIFEST_RECORD = "manifest-path"
"""In the instance's data dir: the manifest ``ghostlight service --manifest`` chose, so that
every later start of the instance (a restart, a client's automatic start after the idle exit)
enforces it too, instead of silently dropping the user's policy."""


def user_manifest_path(
    cli_value: str | None = None, *, data_dir: Path | None = None
) -> Path | None:
    """``--manifest`` wins over ``GHOSTLIGHT_MANIFEST``, which wins over the instance's record
    (in ``data_dir``); each accepts a path or ``file://path``."""
    raw = cli_value or os.environ.get(MANIFEST_ENV) or ""
    if not raw and data_dir is not None:
        return recorded_manifest(data_dir)
    if raw.startswith("file://"):
        raw = raw[len("file://") :]
    return Path(raw).expanduser() if raw else None


def recorded_manifest(data_dir: Path) -> Path | None:
    try:
        raw = (data_dir / MANIFEST_RECORD).read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return Path(raw) if raw else None


def record_manifest(data_dir: Path, path: Path | None) -> None:
    """Keep ``path`` as the instance's manifest (None: forget it)."""
    record = data_dir / MANIFEST_RECORD
    if path is None:
        record.unlink(missing_ok=True)
        return
    data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    partial = record.with_name(f".{MANIFEST_RECORD}.{os.getpid()}")
    partial.write_text(f"{path}\n", encoding="utf-8")
    partial.chmod(0o600)
    partial.replace(record)


def settings_path(data_dir: Path) -> Path:
    raw = os.environ.get(SETTINGS_ENV)
    return Path(raw).expanduser() if raw else data_dir / "config.json"


@attrs.frozen
class PolicyFiles:
    org: Path | None
    user: Path | None
    settings: Path | None


@attrs.frozen
class Loaded:
    """One consistent snapshot of every source."""

    org: Manifest | None = None
    user: Manifest | None = None
    settings: Settings = Settings()
    problems: tuple[str, ...] = ()


def _stamp(path: Path | None) -> tuple[int, int, int] | None:
    if path is None:
        return None
    try:
        info = path.stat()
    except OSError:
        return None
    return (info.st_mtime_ns, info.st_size, info.st_ino)


class PolicySources:
    """Loads the sources and notices when any file changed since the last load."""

    def __init__(self, files: PolicyFiles) -> None:
        self.files = files
        self._stamps: tuple[object, ...] = ()
        self.current = Loaded()

    def changed(self) -> bool:
        return self._current_stamps() != self._stamps

    def _current_stamps(self) -> tuple[object, ...]:
        return tuple(_stamp(path) for path in (self.files.org, self.files.user, self.files.settings))

    def load(self, *, initial: bool = False) -> Loaded:
        """Re-read every source; a broken one keeps its previous value. Returns the snapshot."""
        self._stamps = self._current_stamps()
        previous = self.current
        problems: list[str] = []
        org = self._manifest(self.files.org, previous.org, problems, "org")
        user = self._manifest(self.files.user, previous.user, problems, "user")
        settings = load_settings(self.files.settings) if self.files.settings else Settings()
        for warning in settings.warnings:
            log.warning("settings: %s", warning)
        if settings.unreadable:
            # A broken edit keeps the never-touch list and the rest as they were, as a broken
            # manifest keeps its last good version: it must not quietly open what it closed.
            kept = "every site is never-touch until it reads" if initial else "kept the last good settings"
            problems.append(f"settings: {settings.unreadable}; {kept}")
            log.error("settings rejected (%s): %s", kept, settings.unreadable)
            last_good = previous.settings if not initial else _UNREADABLE_AT_START
            settings = attrs.evolve(last_good, warnings=settings.warnings)
        self.current = Loaded(org=org, user=user, settings=settings, problems=tuple(problems))
        if not initial:
            log.info("policy reloaded%s", f" with {len(problems)} problems" if problems else "")
        return self.current

    def _manifest(
        self, path: Path | None, previous: Manifest | None, problems: list[str], tier: str
    ) -> Manifest | None:
        if path is None:
            return None
        if not path.exists() and tier == "org":
            return None
        try:
            return load_manifest(path)
        except ManifestError as exc:
            problems.append(str(exc))
            log.error("%s manifest rejected, keeping the last good policy: %s", tier, exc)
            return previous if previous is not None else unloadable(tier)


_UNREADABLE_AT_START = Settings(sacred=(HostPattern.parse("*"),))
"""Settings that never loaded stand for a never-touch list of everything: what the user closed
there is unknown, so nothing is opened until the file reads again."""


def unloadable(tier: str) -> Manifest:
    """What a configured tier that never loaded stands for: no grants, so it fails closed."""
    return Manifest(
        name=f"{tier}-policy-unloadable",
        version="0",
        mode="enforce",
        grants=(),
        sacred=(),
        hash=canonical_hash({"unloadable": tier}),
    )
