"""``ghostlight bundle``: one ``.mcpb`` file that Claude Desktop installs in one click.

It holds ``manifest.json``, the entry point ``server/main.py`` and, in ``server/lib``, this
distribution (the service and CLI, both connectors, the browser extension, the tool catalog)
with its runtime dependencies vendored from this environment. Nothing is downloaded.
"""

from __future__ import annotations

import hashlib
import json
import time
from importlib import metadata
from pathlib import Path
from typing import Any

import attrs

from ..catalog.registry import load_specs
from . import bundle_contents
from .bundle_manifest import ENTRY_POINT, LIB_DIR, first_sentence, manifest
from .bundle_zip import write_zip


@attrs.frozen
class BundleReport:
    """What one build wrote, for the command's prose and its ``--json``."""

    file: str
    bytes: int
    sha256: str
    files: int
    seconds: float
    version: str
    python: str
    platforms: list[str]
    """Empty when the bundle runs anywhere its Python does."""
    dependencies: list[dict[str, Any]]


def build(out: Path) -> BundleReport:
    """Write the bundle to ``out``; raises ``BundleError`` (what is missing) or ``OSError``."""
    started = time.monotonic()
    dist = metadata.distribution(bundle_contents.DISTRIBUTION)
    version = dist.version
    deps = [bundle_contents.vendored(d) for d in bundle_contents.dependencies()]
    compiled = [dep.name for dep in deps if dep.compiled]
    python = bundle_contents.python_tag()
    described = manifest(
        version,
        dist.metadata["Summary"] or "Ghostlight",
        compiled=compiled,
        python=python,
        tools=[(spec.name, first_sentence(spec.description)) for spec in load_specs()],
    )
    entries: dict[str, bytes | Path] = {
        "manifest.json": (json.dumps(described, indent=2) + "\n").encode(),
        ENTRY_POINT: bundle_contents.ENTRY_SCRIPT.encode(),
    }
    lib = LIB_DIR + "/"
    for dep in deps:
        entries.update({lib + name: source for name, source in dep.files.items()})
    entries.update({lib + name: source for name, source in bundle_contents.project_files().items()})
    entries.update({lib + name: data for name, data in _dist_info(dist).items()})
    out.parent.mkdir(parents=True, exist_ok=True)
    write_zip(out, entries)
    data = out.read_bytes()
    compatibility = described["compatibility"]
    return BundleReport(
        file=str(out),
        bytes=len(data),
        sha256=hashlib.sha256(data).hexdigest(),
        files=len(entries),
        seconds=round(time.monotonic() - started, 2),
        version=version,
        python=compatibility["runtimes"]["python"],
        platforms=list(compatibility.get("platforms", [])),
        dependencies=[{"name": d.name, "version": d.version, "compiled": d.compiled} for d in deps],
    )


def _dist_info(dist: metadata.Distribution) -> dict[str, bytes]:
    """This distribution's own metadata (name, version, console scripts), so code in the bundle
    that asks ``importlib.metadata`` about Ghostlight gets the answer an installation gives."""
    folder = f"ghostlight_trio-{dist.version}.dist-info/"
    meta = f"Metadata-Version: 2.1\nName: {dist.metadata['Name']}\nVersion: {dist.version}\n"
    entries = {folder + "METADATA": meta.encode()}
    scripts = dist.read_text("entry_points.txt")
    if scripts:
        entries[folder + "entry_points.txt"] = scripts.encode()
    return entries


def default_out(version: str) -> Path:
    return Path(f"ghostlight-{version}.mcpb")
