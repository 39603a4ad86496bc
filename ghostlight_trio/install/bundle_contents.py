"""What an MCP bundle carries: this distribution's own packages and, vendored beside them, its
runtime dependencies as installed here.

Claude Desktop runs a Python bundle with whatever ``python`` it finds, so nothing may be left to
pip: every dependency is copied from this environment, file by file, from its installed record
(``importlib.metadata``), and nothing is fetched. Some of them carry compiled extensions
(Pillow, regex, rpds-py, cbor2's accelerator); those run only on this platform and this Python,
which the bundle's manifest then says.
"""

from __future__ import annotations

import importlib
import importlib.util
import re
import sys
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path

import attrs

from ..browser.managed import default_extension_dir

DISTRIBUTION = "ghostlight-trio"
PACKAGES = ("ghostlight_trio", "ghostlight_mcp_connector", "ghostlight_browser_connector")
"""The three executables' packages, the one distribution's ``[tool.setuptools] packages``."""
COMPILED_SUFFIXES = (".so", ".pyd", ".dylib", ".dll")
_SKIPPED_NAMES = ("RECORD", "INSTALLER", "REQUESTED", "direct_url.json")
"""Installer bookkeeping: it names paths of this machine and nothing reads it at run time."""


class BundleError(RuntimeError):
    """The bundle cannot be made from this environment; the message says what is missing."""


@attrs.frozen
class Vendored:
    """One runtime dependency as the bundle carries it."""

    name: str
    version: str
    files: dict[str, Path]
    """Path inside the bundle's ``lib`` directory -> the installed file."""
    compiled: bool


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def dependencies(root: str = DISTRIBUTION) -> list[metadata.Distribution]:
    """The runtime closure of ``root``'s requirements (no extras), ``root`` itself excluded,
    sorted. A requirement whose marker does not hold here is skipped (``holds``)."""
    found: dict[str, metadata.Distribution] = {}
    seen: set[str] = set()
    pending = [(root, False)]
    while pending:
        name, optional = pending.pop()
        key = canonical(name)
        if key in seen:
            continue
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            if optional:
                continue
            raise BundleError(
                f"the dependency {name!r} is not installed here; install {DISTRIBUTION} with"
                " its dependencies (pip install .) and build the bundle again"
            ) from None
        seen.add(key)
        if key != canonical(root):
            found[key] = dist
        for requirement in dist.requires or []:
            spec, _, marker = requirement.partition(";")
            if "extra" in marker or not holds(marker.strip()):
                continue
            match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", spec)
            if match:
                pending.append((match.group(1), bool(marker.strip())))
    return [found[key] for key in sorted(found)]


def holds(marker: str) -> bool:
    """Whether an environment marker holds for this interpreter. ``packaging`` evaluates it
    where it is importable (pip carries a copy); without it a marked requirement counts, and
    ``dependencies`` then takes it only when it is installed."""
    if not marker:
        return True
    for module in ("packaging.markers", "pip._vendor.packaging.markers"):
        try:
            markers = importlib.import_module(module)
        except ImportError:
            continue
        return bool(markers.Marker(marker).evaluate())
    return True


def vendored(dist: metadata.Distribution) -> Vendored:
    """``dist``'s installed files that belong in ``lib``: not its scripts elsewhere on the
    system, not byte code (rebuilt on first import), not installer bookkeeping."""
    files: dict[str, Path] = {}
    for entry in dist.files or []:
        relative = entry.as_posix()
        if relative.startswith(("..", "/")) or "__pycache__" in entry.parts:
            continue
        if relative.endswith(".pyc") or entry.name in _SKIPPED_NAMES:
            continue
        source = Path(str(dist.locate_file(entry)))
        if source.is_file():
            files[relative] = source
    name = dist.metadata["Name"] or "?"
    compiled = any(path.endswith(COMPILED_SUFFIXES) or ".so." in path for path in files)
    return Vendored(name, dist.version, files, compiled)


def package_dir(package: str) -> Path:
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise BundleError(f"the package {package!r} is not importable here")
    return Path(next(iter(spec.submodule_search_locations)))


ENTRY_SCRIPT = '''"""Ghostlight's MCP connector, run from this bundle's lib directory."""

import os
import sys

LIB = os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib")
sys.path.insert(0, LIB)

from ghostlight_mcp_connector.bundled import prepare  # noqa: E402

prepare(LIB)

from ghostlight_mcp_connector.__main__ import main  # noqa: E402

sys.exit(main())
'''
"""The bundle's ``server/main.py``: the connector's one entry point behind a ``sys.path`` of
the bundle's own (``ghostlight_mcp_connector.bundled`` says why)."""


def project_files() -> dict[str, Path]:
    """The three packages, their package data (the tool catalog) and the browser extension, at
    the paths a wheel gives them: in a checkout the extension is the repository's
    ``extension/``, installed it is already inside ``ghostlight_trio``."""
    files: dict[str, Path] = {}
    for package in PACKAGES:
        files.update(_tree(package_dir(package), package))
    extension = default_extension_dir()
    if not (extension / "manifest.json").is_file():
        raise BundleError(f"the browser extension is missing (looked in {extension})")
    files.update(_tree(extension, "ghostlight_trio/extension"))
    return files


def _tree(directory: Path, prefix: str) -> Iterator[tuple[str, Path]]:
    for path in sorted(directory.rglob("*")):
        if "__pycache__" in path.parts or path.suffix == ".pyc" or not path.is_file():
            continue
        yield f"{prefix}/{path.relative_to(directory).as_posix()}", path


def python_tag() -> str:
    """The Python the compiled extensions were built for, as ``3.11``."""
    return f"{sys.version_info.major}.{sys.version_info.minor}"
