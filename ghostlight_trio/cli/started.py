"""What a command started, so that Ctrl-C or a failure stops it again instead of leaving it.

The service and the managed browser run in sessions of their own (a client that kills its
process group must not take them along), so the terminal's Ctrl-C never reaches them: the
command that started them has to stop them itself, within a bounded time, and say what it
could not stop.
"""

from __future__ import annotations

import subprocess
import sys

import attrs

from ..browser.managed import ManagedBrowser
from .background import stop_service


@attrs.define
class Started:
    """The service and browser one command started (None: it found them running, or has not
    got that far)."""

    service: subprocess.Popen[bytes] | None = None
    browser: ManagedBrowser | None = None

    async def stop(self, *, say: bool) -> None:
        """Stop both, the browser first (its native host talks to the service); with ``say``,
        name on stderr what was stopped."""
        stopped: list[str] = []
        if self.browser is not None:
            await self.browser.aclose()
            stopped.append(f"browser pid {self.browser.browser_pid or self.browser.pid}")
            self.browser = None
        if self.service is not None:
            await stop_service(self.service)
            stopped.append(f"service pid {self.service.pid}")
            self.service = None
        if say and stopped:
            print(f"ghostlight: stopped what this command started: {', '.join(stopped)}", file=sys.stderr)
