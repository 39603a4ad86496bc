"""What install created in each client config, so uninstall takes out exactly that.

A config may have existed before install, even as ``{}`` or an empty ``mcpServers``; only a
note made when install wrote it tells the two apart. Without a note uninstall keeps the file
and its containers: an empty container is harmless, deleting the user's content is not.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import attrs

from ..files.safe import read_regular, replace_private

RECORD_NAME = "install-record.json"


@attrs.frozen
class Created:
    file: bool = False
    """The file did not exist: install made it (and ``dirs``, outermost first)."""
    depth: int = 0
    """How many container levels already existed; the deeper ones are install's."""
    newline: bool = False
    """Install ended the file's unterminated last line with a newline."""
    blank: str | None = None
    """The whitespace the file held before, when it held nothing else."""
    dirs: tuple[str, ...] = ()


@attrs.frozen
class Update:
    """Note ``created`` for ``path`` in the record at ``store`` (None: forget ``path``)."""

    store: Path
    path: Path
    created: Created | None
    tidy: tuple[Path, ...] = ()
    """Directories install made for a file it deletes: removed when nothing else is left."""


def store_for(data_dir: Path) -> Path:
    return data_dir / RECORD_NAME


def lookup(store: Path | None, path: Path) -> Created | None:
    if store is None:
        return None
    raw = _load(store).get(str(path))
    if not isinstance(raw, dict):
        return None
    try:
        return Created(
            file=bool(raw.get("file")), depth=int(raw.get("depth", 0)),
            newline=bool(raw.get("newline")),
            blank=raw["blank"] if isinstance(raw.get("blank"), str) else None,
            dirs=tuple(str(d) for d in raw.get("dirs", ())),
        )
    except (TypeError, ValueError):
        return None


def apply(update: Update, *, made_dirs: tuple[Path, ...] = (), removed: bool = False) -> None:
    """Write the note; a record that cannot be written only means uninstall keeps more."""
    if removed:
        _tidy(update.path, update.tidy)
    entries = _load(update.store)
    if update.created is None:
        entries.pop(str(update.path), None)
    else:
        dirs = tuple(str(d) for d in made_dirs) if update.created.file else ()
        entries[str(update.path)] = attrs.asdict(attrs.evolve(update.created, dirs=dirs))
    try:
        _save(update.store, entries)
    except OSError:
        pass


def _tidy(path: Path, directories: tuple[Path, ...]) -> None:
    """Remove the backups of a file install created and the directories made for it."""
    for directory in reversed(directories):
        if directory == path.parent:
            for backup in directory.glob(f"{path.name}.ghostlight-backup-*"):
                backup.unlink(missing_ok=True)
        try:
            directory.rmdir()
        except OSError:
            return  # not empty: something of the user's is there


def _load(store: Path) -> dict[str, Any]:
    try:
        value = json.loads((read_regular(store, limit=_MAX_LEDGER_BYTES) or b"{}").decode("utf-8"))
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def _save(store: Path, entries: dict[str, Any]) -> None:
    if not entries:
        store.unlink(missing_ok=True)
        return
    store.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    replace_private(store, json.dumps(entries, indent=2, sort_keys=True).encode())


_MAX_LEDGER_BYTES = 4 * 1024 * 1024
"""Far past any real record of what install wrote; a larger file is taken for none."""
