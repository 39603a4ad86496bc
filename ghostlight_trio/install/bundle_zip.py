"""Writes a zip the same way every time: entries sorted, one fixed timestamp, fixed modes, so
two builds of the same tree are byte-identical and a bundle's checksum means something."""

from __future__ import annotations

import os
import zipfile
from collections.abc import Mapping
from pathlib import Path

FIXED_TIME = (1980, 1, 1, 0, 0, 0)
"""The earliest time a zip can hold; no build time leaks into the archive."""
FILE_MODE = 0o100644
UNIX = 3
"""``create_system`` for Unix, so the modes are read back as such."""


def write_zip(out: Path, entries: Mapping[str, bytes | Path]) -> None:
    """Write ``entries`` (archive path -> content or file to copy) to ``out``, replacing it
    only once the whole archive is written."""
    partial = out.with_name(out.name + ".part")
    try:
        with zipfile.ZipFile(partial, "w") as archive:
            for name in sorted(entries):
                content = entries[name]
                data = content.read_bytes() if isinstance(content, Path) else content
                info = zipfile.ZipInfo(name, FIXED_TIME)
                info.compress_type = zipfile.ZIP_DEFLATED
                info.create_system = UNIX
                info.external_attr = FILE_MODE << 16
                archive.writestr(info, data, compresslevel=6)
        os.replace(partial, out)
    finally:
        partial.unlink(missing_ok=True)
