"""Control queries over the bridge (status), shared by status, browser launch and the demo."""

from __future__ import annotations

import trio

from ..transport.bridge import StatusReport, StatusRequest
from ..transport.endpoints import Endpoints
from ..transport.handshake import open_bridge

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


async def wait_for_browser(endpoints: Endpoints, *, within: float, is_alive=None) -> StatusReport:
    """Poll until at least one browser extension is connected to the service."""
    with trio.move_on_after(within):
        while True:
            report = await query_status(endpoints)
            if report.browsers:
                return report
            if is_alive is not None and not is_alive():
                raise RuntimeError("the browser exited before its extension connected")
            await trio.sleep(0.1)
    raise TimeoutError(f"no browser extension connected within {within:g} s")
