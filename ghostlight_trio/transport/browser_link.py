"""The browser wire's facts shared by the service's browser shore and the relay.

Each hop has its own frame ceiling: Chrome -> relay -> service carries up to what Chrome sends
(64 MiB); relay -> Chrome must stay under what Chrome accepts (1 MiB), and the service keeps a
margin below that so the relay never has to drop one of its frames. See ``specs/browser-wire.md``.
"""

from __future__ import annotations

from typing import Final

WIRE_MAJOR: Final = 1
"""The browser wire's major: the relay hello, the extension hello and the welcome carry it."""

FROM_CHROME_CEILING: Final = 64 * 1024 * 1024
"""Chrome never sends more than 64 MiB in one message to a native host."""
TO_CHROME_CEILING: Final = 1024 * 1024
"""Chrome drops the port on a host message over 1 MiB, so the relay refuses such frames."""

SERVICE_FRAME_CEILING: Final = FROM_CHROME_CEILING
"""Largest frame on the relay <-> service link: whatever Chrome may send passes unchanged."""
SERVICE_MARGIN_TO_CHROME: Final = 124 * 1024
MAX_FRAME_TO_CHROME: Final = TO_CHROME_CEILING - SERVICE_MARGIN_TO_CHROME
"""Every frame the service sends toward Chrome stays at or below this (900 KiB), a margin under
the relay's ``TO_CHROME_CEILING``; a larger request goes in chunks."""
