"""Planned file changes: shown exactly as a diff on ``--dry-run``, applied with a backup.

A change records the content it was planned against; if the file moved on since (a client
rewrote it), applying refuses rather than overwrite the newer content. Files are read and
written as bytes decoded as UTF-8, so line endings stay exactly as they were, and a symlinked
config is written through to the file it points at, keeping the link.
"""

from __future__ import annotations

import difflib
import os
import re
import shutil
import stat
import tempfile
import time
from pathlib import Path

import attrs

from . import ledger


class StaleChange(RuntimeError):
    """The file changed between planning and applying."""


class UnreadableFile(ValueError):
    """The file exists but cannot be read as UTF-8 text; the message says why."""


@attrs.frozen
class FileChange:
    """Replace ``before`` (None: absent) with ``after`` (None: delete) at ``path``."""

    path: Path
    before: str | None
    after: str | None
    mode: int = 0o600
    backup: bool = True
    """False for files wholly ours (manifests, wrappers, units): nothing of the user's to keep."""
    record: ledger.Update | None = None
    """What to note in the install record once applied (None: leave the record alone)."""

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
        skip, before, after = _trim_common(before, after, context=2)
        lines = difflib.unified_diff(before, after, fromfile=old, tofile=new, n=2)
        lines = (_shift_hunk(line, skip) for line in lines)
        return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def _trim_common(
    before: list[str], after: list[str], context: int
) -> tuple[int, list[str], list[str]]:
    """Drop the lines both sides share at the start and end (but the context kept around the
    change), so a small edit to a file of megabytes diffs at once; returns the lines skipped."""
    limit = min(len(before), len(after))
    head = 0
    while head < limit and before[head] == after[head]:
        head += 1
    tail = 0
    while tail < limit - head and before[-1 - tail] == after[-1 - tail]:
        tail += 1
    skip = max(head - context, 0)
    tail = max(tail - context, 0)
    return skip, before[skip : len(before) - tail], after[skip : len(after) - tail]


_HUNK = re.compile(r"^@@ -(\d+)(,\d+)? \+(\d+)(,\d+)? @@")


def _shift_hunk(line: str, skip: int) -> str:
    """Renumber a hunk header of a diff made from lines ``skip`` onwards."""
    match = _HUNK.match(line) if skip else None
    if match is None:
        return line
    old, old_len, new, new_len = match.groups()
    header = f"@@ -{int(old) + skip}{old_len or ''} +{int(new) + skip}{new_len or ''} @@"
    return header + line[match.end() :]


def read_text(path: Path) -> str | None:
    """The file's text exactly as stored (None: absent); UnreadableFile says why it cannot be."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        raise UnreadableFile(f"{path} is a directory, not a file") from None
    except PermissionError:
        raise UnreadableFile(f"{path} cannot be read (permission denied)") from None
    except OSError as exc:
        raise UnreadableFile(f"{path} cannot be read ({exc.strerror or exc})") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UnreadableFile(
            f"{path} is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start})"
        ) from None


def real_path(path: Path) -> Path:
    """Where writes to ``path`` land: the file a symlink points at, else ``path`` itself."""
    return Path(os.path.realpath(path)) if path.is_symlink() else path


def dangling_link(path: Path) -> Path | None:
    """The missing target of ``path`` when it is a symlink to nothing."""
    if path.is_symlink() and not path.exists():
        return Path(os.path.realpath(path))
    return None


def read_only(path: Path) -> bool:
    """An existing file its owner marked read-only (the mode is checked too: root ignores it)."""
    target = real_path(path)
    try:
        mode = target.stat().st_mode
    except OSError:
        return False
    return not os.access(target, os.W_OK) or not mode & stat.S_IWUSR


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
        shutil.copy2(change.path, backup)  # follows a symlink: the content, not the link
    if change.after is None:
        change.path.unlink()
        if change.record is not None:
            ledger.apply(change.record, removed=True)
        return backup
    made = _make_parents(change.path.parent)
    mode = change.mode
    if change.before is not None:
        mode = stat.S_IMODE(real_path(change.path).stat().st_mode)
    _write(real_path(change.path), change.after, mode)
    if change.record is not None:
        ledger.apply(change.record, made_dirs=made)
    return backup


def _make_parents(directory: Path) -> tuple[Path, ...]:
    """Create ``directory`` and its missing parents; returns those made, outermost first."""
    missing = []
    while not directory.exists() and directory != directory.parent:
        missing.append(directory)
        directory = directory.parent
    for each in reversed(missing):
        each.mkdir(exist_ok=True)
    return tuple(reversed(missing))


def _write(path: Path, text: str, mode: int) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(text.encode("utf-8"))
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
