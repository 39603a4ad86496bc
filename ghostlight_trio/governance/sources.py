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

from ..files.safe import read_regular, replace_private
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
    record = data_dir / MANIFEST_RECORD
    try:
        data = read_regular(record, limit=_MAX_RECORD_BYTES)
        raw = data.decode("utf-8").strip() if data is not None else ""
    except (OSError, UnicodeDecodeError):
        # The user's policy is there but cannot be named: the tier reads the record itself,
        # which fails, so it stands closed and its problem names the record and the fix.
        return record
    return Path(raw) if raw else None


_MAX_RECORD_BYTES = 64 * 1024


def record_manifest(data_dir: Path, path: Path | None) -> None:
    """Keep ``path`` as the instance's manifest (None: forget it)."""
    record = data_dir / MANIFEST_RECORD
    if path is None:
        record.unlink(missing_ok=True)
        return
    data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    replace_private(record, f"{path}\n".encode())


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


@attrs.frozen
class Reading:
    """What the files said at one look, before any of it is installed: taken off the event
    loop, installed on it."""

    stamps: tuple[object, ...]
    generation: int
    org: Manifest | ManifestError | None
    user: Manifest | ManifestError | None
    settings: Settings


class PolicySources:
    """Loads the sources and notices when any file changed since the last load."""

    def __init__(self, files: PolicyFiles) -> None:
        self.files = files
        self._stamps: tuple[object, ...] = ()
        self._generation = 0
        self.current = Loaded()

    def changed(self) -> bool:
        return self._current_stamps() != self._stamps

    def _current_stamps(self) -> tuple[object, ...]:
        return tuple(_stamp(path) for path in (self.files.org, self.files.user, self.files.settings))

    def load(self, *, initial: bool = False) -> Loaded:
        """Re-read every source; a broken one keeps its previous value. Returns the snapshot."""
        installed = self.install(self.read(), initial=initial)
        assert installed is not None  # nothing installed between this read and its install
        return installed

    def read_if_changed(self) -> Reading | None:
        """``read`` when a file changed since the last install (None otherwise). Safe to run
        in a worker thread: it changes nothing here."""
        return self.read() if self.changed() else None

    def read(self) -> Reading:
        """Every source as its file says now. Each read is bounded (a regular file only, a
        size cap, an open that never waits), so no file can stop the reader."""
        generation = self._generation
        stamps = self._current_stamps()
        return Reading(
            stamps=stamps,
            generation=generation,
            org=self._manifest(self.files.org, "org"),
            user=self._manifest(self.files.user, "user"),
            settings=load_settings(self.files.settings) if self.files.settings else Settings(),
        )

    def install(self, reading: Reading, *, initial: bool = False) -> Loaded | None:
        """Make ``reading`` the current snapshot, each broken source keeping its previous value.
        None (and nothing changes) when another reading was installed since this one began:
        it may be older than what is in force."""
        if reading.generation != self._generation:
            return None
        self._generation += 1
        self._stamps = reading.stamps
        previous = self.current
        problems: list[str] = []
        org = self._kept(reading.org, previous.org, problems, "org")
        user = self._kept(reading.user, previous.user, problems, "user")
        settings = reading.settings
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

    @staticmethod
    def _manifest(path: Path | None, tier: str) -> Manifest | ManifestError | None:
        if path is None:
            return None
        if not path.exists() and tier == "org":
            return None
        try:
            return load_manifest(path)
        except ManifestError as exc:
            return exc

    @staticmethod
    def _kept(
        read: Manifest | ManifestError | None,
        previous: Manifest | None,
        problems: list[str],
        tier: str,
    ) -> Manifest | None:
        if not isinstance(read, ManifestError):
            return read
        problems.append(str(read))
        log.error("%s manifest rejected, keeping the last good policy: %s", tier, read)
        return previous if previous is not None else unloadable(tier)


_UNREADABLE_AT_START = Settings(never_touch=(HostPattern.parse("*"),))
"""Settings that never loaded stand for a never-touch list of everything: what the user closed
there is unknown, so nothing is opened until the file reads again."""


def unloadable(tier: str) -> Manifest:
    """What a configured tier that never loaded stands for: no grants, so it fails closed."""
    return Manifest(
        name=f"{tier}-policy-unloadable",
        version="0",
        mode="enforce",
        grants=(),
        never_touch=(),
        hash=canonical_hash({"unloadable": tier}),
    )
