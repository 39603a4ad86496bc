"""Planned file changes: shown exactly as a diff on ``--dry-run``, applied with a backup.

A change records the content it was planned against; if the file moved on since (a client
rewrote it), applying refuses rather than overwrite the newer content.
"""

from __future__ import annotations

import difflib
import os
import shutil
import stat
import tempfile
import time
from pathlib import Path

import attrs


class StaleChange(RuntimeError):
    """The file changed between planning and applying."""


@attrs.frozen
class FileChange:
    """Replace ``before`` (None: absent) with ``after`` (None: delete) at ``path``."""

    path: Path
    before: str | None
    after: str | None
    mode: int = 0o600
    backup: bool = True
    """False for files wholly ours (manifests, wrappers, units): nothing of the user's to keep."""

    @property
    def changes_anything(self) -> bool:
        return self.before != self.after

    @property
    def verb(self) -> str:
        if self.before is None:
            return "create"
        return "delete" if self.after is None else "update"

    def diff(self) -> str:
        """A unified diff of exactly what applying would write."""
        before = (self.before or "").splitlines(keepends=True)
        after = (self.after or "").splitlines(keepends=True)
        old = str(self.path) if self.before is not None else "/dev/null"
        new = str(self.path) if self.after is not None else "/dev/null"
        lines = difflib.unified_diff(before, after, fromfile=old, tofile=new, n=2)
        return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def read_text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None


def backup_path(path: Path) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    candidate = path.with_name(f"{path.name}.ghostlight-backup-{stamp}")
    counter = 1
    while candidate.exists():
        candidate = path.with_name(f"{path.name}.ghostlight-backup-{stamp}-{counter}")
        counter += 1
    return candidate


def apply(change: FileChange) -> Path | None:
    """Write the change atomically; returns the backup of the previous content, if any."""
    if read_text(change.path) != change.before:
        raise StaleChange(f"{change.path} changed since it was read; run the command again")
    backup = None
    if change.before is not None and change.backup:
        backup = backup_path(change.path)
        shutil.copy2(change.path, backup)
    if change.after is None:
        change.path.unlink()
        return backup
    change.path.parent.mkdir(parents=True, exist_ok=True)
    mode = change.mode
    if change.before is not None:
        mode = stat.S_IMODE(change.path.stat().st_mode)
    fd, tmp = tempfile.mkstemp(dir=change.path.parent, prefix=f".{change.path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(change.after)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, change.path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return backup
