"""The one declaration of which extensions this service works with, and the skew verdict.

The extension's hello carries its ``wire`` major and ``extensionVersion``. A different wire
major is refused at admission; a version outside ``SUPPORTED_EXTENSIONS`` is admitted (so
doctor and status can show it) but every tool call routed to it fails with ``skew_message``.
"""

from __future__ import annotations

import re
from typing import Final

import attrs

from .. import __version__
from ..transport.browser_link import WIRE_MAJOR


@attrs.frozen
class VersionRange:
    """Inclusive ``minimum``, exclusive ``below``."""

    minimum: str
    below: str

    def __str__(self) -> str:
        return f">={self.minimum},<{self.below}"

    @property
    def lowest(self) -> tuple[int, int, int]:
        return _bound(self.minimum)

    def contains(self, version: str) -> bool:
        parsed = parse_version(version)
        return parsed is not None and self.lowest <= parsed < _bound(self.below)


SUPPORTED_EXTENSIONS: Final = VersionRange(minimum="0.1.0", below="0.2.0")
"""Extension versions this service release is tested with (bump with contract changes)."""
SUPPORTED_WIRE: Final = WIRE_MAJOR


def parse_version(text: str) -> tuple[int, int, int] | None:
    match = re.match(r"^\s*(\d+)\.(\d+)(?:\.(\d+))?", text or "")
    if not match:
        return None
    return int(match.group(1)), int(match.group(2)), int(match.group(3) or 0)


def _bound(text: str) -> tuple[int, int, int]:
    """A range bound, written in this module: always a version."""
    parsed = parse_version(text)
    if parsed is None:
        raise ValueError(f"{text!r} is no version")
    return parsed


def skew_message(extension_version: str) -> str | None:
    """None when the extension is supported; otherwise what is wrong and which side to update."""
    if SUPPORTED_EXTENSIONS.contains(extension_version):
        return None
    shown = extension_version or "(no version)"
    parsed = parse_version(extension_version)
    older = parsed is None or parsed < SUPPORTED_EXTENSIONS.lowest
    fix = (
        "update the Ghostlight extension (reload it from the package's extension/ directory)"
        if older
        else "update the Ghostlight package (`pip install -U ghostlight-trio`), then"
        " `ghostlight service restart`"
    )
    return (
        f"Ghostlight extension {shown} is not supported by service {__version__}"
        f" (supports extension {SUPPORTED_EXTENSIONS}, wire {SUPPORTED_WIRE}); {fix}"
    )
