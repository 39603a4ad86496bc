"""``ghostlight hold | resume [--workspace WS] | panic``: the user's safety switches, sent to the
running service."""

from __future__ import annotations

import sys

import trio

from ..transport.bridge import ControlCommand, ControlResult
from ..transport.endpoints import Endpoints
from ..transport.handshake import BridgeVersionError, ServiceUnresponsive, open_bridge
from ..transport.proof import ProofError, SecretFileError
from ..transport.stream import BridgeClosed

COMMAND_TIMEOUT = 5.0


def resume_workspace_command(fingerprint: str) -> str | None:
    """The control command resuming one workspace; None when ``fingerprint`` cannot be one (the
    command travels as space-separated words)."""
    word = fingerprint.strip().lower()
    if not word or any(char.isspace() for char in word):
        return None
    return f"resume workspace {word}"


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
    except ServiceUnresponsive as exc:
        print(f"ghostlight: {exc}; {command!r} was not delivered.", file=sys.stderr)
        return 1
    except trio.TooSlowError:
        print(
            f"ghostlight: the service for instance {endpoints.instance!r} took the {command!r}"
            f" command but did not confirm it within {COMMAND_TIMEOUT:g} s; check"
            f" `ghostlight status --instance {endpoints.instance}`.",
            file=sys.stderr,
        )
        return 1
    except (ProofError, SecretFileError, BridgeVersionError, BridgeClosed) as exc:
        print(f"ghostlight: {exc}; {command!r} was not delivered.", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"ghostlight: the service for instance {endpoints.instance!r} is not reachable"
              f" ({exc}); nothing is running to {command}.", file=sys.stderr)
        return 1
    print(result.message)
    return 0 if result.ok else 1
