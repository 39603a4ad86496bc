"""``ghostlight hold | resume | panic``: the user's safety switches, sent to the running service."""

from __future__ import annotations

import sys

import trio

from ..transport.bridge import ControlCommand, ControlResult
from ..transport.endpoints import Endpoints
from ..transport.handshake import open_bridge

COMMAND_TIMEOUT = 5.0


async def send_control(endpoints: Endpoints, command: str) -> ControlResult:
    """One control command over a control stream; raises OSError when no service answers."""
    stream, _ = await open_bridge(endpoints, role="control")
    try:
        with trio.fail_after(COMMAND_TIMEOUT):
            await stream.send(ControlCommand(sequence=1, command=command))
            while True:
                message = await stream.receive()
                if isinstance(message, ControlResult) and message.sequence == 1:
                    return message
    finally:
        await stream.aclose()


async def control(endpoints: Endpoints, command: str) -> int:
    try:
        result = await send_control(endpoints, command)
    except (OSError, trio.TooSlowError) as exc:
        print(f"ghostlight: the service for instance {endpoints.instance!r} is not reachable"
              f" ({exc}); nothing is running to {command}.", file=sys.stderr)
        return 1
    print(result.message)
    return 0 if result.ok else 1
