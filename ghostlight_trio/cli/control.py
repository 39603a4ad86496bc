"""Control queries over the bridge (status), shared by status, browser launch and the demo."""

from __future__ import annotations

from typing import TYPE_CHECKING

import trio

from ..browser.managed import exit_words
from ..transport.bridge import StatusReport, StatusRequest
from ..transport.endpoints import Endpoints
from ..transport.handshake import open_bridge

if TYPE_CHECKING:
    from ..browser.managed import ManagedBrowser

QUERY_TIMEOUT = 5.0


async def query_status(endpoints: Endpoints) -> StatusReport:
    """Ask the running service for a point-in-time summary."""
    stream, _ = await open_bridge(endpoints, role="control")
    try:
        with trio.fail_after(QUERY_TIMEOUT):
            await stream.send(StatusRequest(sequence=1))
            while True:
                message = await stream.receive()
                if isinstance(message, StatusReport):
                    return message
    finally:
        await stream.aclose()


async def wait_for_browser(
    endpoints: Endpoints, *, within: float, launched: ManagedBrowser | None = None
) -> StatusReport:
    """Poll until at least one browser extension is connected to the service. With the browser
    just ``launched``, give up as soon as it exits instead of waiting out ``within``."""
    with trio.move_on_after(within):
        while True:
            report = await query_status(endpoints)
            if report.browsers:
                return report
            code = launched.process.returncode if launched is not None else None
            if code is not None:
                raise RuntimeError(
                    f"the browser exited ({exit_words(code)}) before its extension connected"
                )
            await trio.sleep(0.1)
    raise TimeoutError(f"no browser extension connected within {within:g} s")
