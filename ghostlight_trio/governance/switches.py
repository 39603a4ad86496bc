"""The user's safety switches kept on disk, so that they outlive the service.

``panic`` is latched until ``resume`` and ``hold`` lasts until ``resume``: a service that
restarts (``service restart``, the idle exit of an on-demand service followed by a client's
automatic start, a crash) must come back with them as the user left them, never quietly
letting agents act again. The file is written atomically, owner-only, on every change; a file
that cannot be read is taken as the safe state (kill switch on) and said so in the log.

The CLI saves a switch here itself when no service takes it (none runs, or the running one is
stopped or frozen), and a running service re-reads the record, so a hold pressed while it did
not answer still stops agents once it runs again.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

import attrs

from ..files.safe import read_regular, replace_private

log = logging.getLogger("ghostlight.governance")

SWITCHES_FILE = "switches.json"
_MAX_SWITCHES_BYTES = 64 * 1024


@attrs.frozen
class Switches:
    held: bool = False
    panicked: bool = False

    @property
    def names(self) -> tuple[str, ...]:
        """The switches that are on, as answers and status name them."""
        return tuple(name for name, on in (("hold", self.held), ("kill switch", self.panicked)) if on)


class UnreadableSwitches(ValueError):
    """The record exists but says nothing usable: a service starting now takes the safe state."""


def read_switches(path: Path) -> Switches:
    """The switches as last saved; off when never saved. Raises ``UnreadableSwitches`` when the
    record cannot be read, so each reader picks its own safe answer (and says why)."""
    try:
        data = read_regular(path, limit=_MAX_SWITCHES_BYTES)  # read every second: bounded
        if data is None:
            return Switches()
        raw = json.loads(data.decode("utf-8"))
    except (OSError, ValueError) as exc:
        raise UnreadableSwitches(f"{path} cannot be read ({exc})") from exc
    if not isinstance(raw, dict) or not all(
        isinstance(raw.get(key, False), bool) for key in ("held", "panicked")
    ):
        raise UnreadableSwitches(f"{path} is not a switches record")
    return Switches(held=raw.get("held", False), panicked=raw.get("panicked", False))


def load_switches(path: Path) -> Switches:
    """The switches as last saved; off when never saved; the kill switch when unreadable."""
    try:
        return read_switches(path)
    except UnreadableSwitches as exc:
        log.error("%s: starting with the kill switch on", exc)
        return Switches(panicked=True)


def save_switches(path: Path, switches: Switches) -> None:
    """Replace the record atomically (a crash leaves the old one or the new one, whole)."""
    body = json.dumps({"held": switches.held, "panicked": switches.panicked}) + "\n"
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    replace_private(path, body.encode())
