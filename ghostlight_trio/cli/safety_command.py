"""``ghostlight hold | resume [--workspace WS] | panic``: the user's safety switches, sent to the
running service.

When no service takes the command (none is running, or the one running does not answer), hold,
panic and resume are saved to the instance's switches record all the same: every service reads
it when it starts, including the one an agent's client starts on demand a moment later, and a
running one that was stopped or frozen applies a saved hold or kill switch once it runs again,
so the switch the user pressed is never lost to a service that happened to be down or stuck."""

from __future__ import annotations

import sys

import trio

from ..governance.switches import (
    SWITCHES_FILE,
    Switches,
    UnreadableSwitches,
    load_switches,
    read_switches,
    save_switches,
)
from ..transport.bridge import ControlCommand, ControlResult
from ..transport.endpoints import Endpoints
from ..transport.handshake import BridgeVersionError, ServiceUnresponsive, open_bridge
from ..transport.proof import ProofError, SecretFileError
from ..transport.stream import BridgeClosed, BridgeProtocolError, FrameError
from .wording import os_problem

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


UNDELIVERED = (
    ProofError, SecretFileError, BridgeVersionError, BridgeClosed, BridgeProtocolError, FrameError
)
"""A service answered the socket but the command did not reach it (a squatter, a missing
secret, another bridge version, a stream closed or garbled)."""
NO_ANSWER = (OSError, trio.TooSlowError, *UNDELIVERED)
"""Everything ``send_control`` raises when no service took the command."""

_SAVED = {
    "hold": lambda kept: Switches(held=True, panicked=kept.panicked),
    "panic": lambda kept: Switches(held=kept.held, panicked=True),
    "resume": lambda kept: Switches(),
}
"""The switches record after each command that a service keeps across starts."""


async def control(endpoints: Endpoints, command: str) -> int:
    try:
        result = await send_control(endpoints, command)
    except ServiceUnresponsive as exc:
        return _undelivered(endpoints, command, f"{exc}; {command!r} was not delivered")
    except trio.TooSlowError:
        return _undelivered(
            endpoints,
            command,
            f"the service for instance {endpoints.instance!r} took the {command!r} command but"
            f" did not confirm it within {COMMAND_TIMEOUT:g} s",
        )
    except UNDELIVERED as exc:
        return _undelivered(endpoints, command, f"{exc}; {command!r} was not delivered")
    except OSError as exc:
        return await _while_down(endpoints, command, exc)
    print(result.message)
    return 0 if result.ok else 1


async def _while_down(endpoints: Endpoints, command: str, problem: OSError) -> int:
    """No service listens: save the switch for the next one to start, then look once more
    (a client may have started one meanwhile, reading the record before it was saved)."""
    if command not in _SAVED:
        print(
            f"ghostlight: the service for instance {endpoints.instance!r} is not running"
            f" ({os_problem(problem)}); no workspace is paused while it is down.",
            file=sys.stderr,
        )
        return 1
    already = _already_on(endpoints, command)
    saved = _save(endpoints, command)
    if saved is not None:
        print(f"ghostlight: the service is not running, and {saved}", file=sys.stderr)
        return 1
    try:
        result = await send_control(endpoints, command)
    except NO_ANSWER:
        print(_saved_text(endpoints, command, already=already))
        return 0
    print(result.message)
    return 0 if result.ok else 1


def _undelivered(endpoints: Endpoints, command: str, problem: str) -> int:
    """A service is there but did not take the command: save it for that service's next start,
    and say that the running one may not have applied it."""
    print(f"ghostlight: {problem}.", file=sys.stderr)
    if command not in _SAVED:
        return 1
    saved = _save(endpoints, command)
    if saved is not None:
        print(f"ghostlight: {saved}", file=sys.stderr)
        return 1
    print(f"ghostlight: {_pending_text(endpoints, command)}", file=sys.stderr)
    return 1


def _pending_text(endpoints: Endpoints, command: str) -> str:
    """What a saved command does to the service that did not take it: a running service picks
    up a saved hold or kill switch within a second of running again, but never releases one on
    a saved resume it did not take itself (that could be an old record)."""
    restart = f"`ghostlight service restart --instance {endpoints.instance}` (or end its process)"
    if command == "resume":
        return (
            "'resume' is saved for the service's next start; the running service keeps what it"
            " holds until a `ghostlight resume` reaches it (try again once `ghostlight status`"
            f" shows it up) or it restarts: {restart}."
        )
    return (
        f"{command!r} is saved for the service's next start, and the running service applies it"
        " within a second of running again (`ghostlight status` shows whether it has)."
        f" Should it stay stuck, restart it: {restart}."
    )


def _save(endpoints: Endpoints, command: str) -> str | None:
    """Save the switches after ``command``; None when saved, else why not."""
    path = endpoints.data_dir / SWITCHES_FILE
    try:
        save_switches(path, _SAVED[command](load_switches(path)))
    except OSError as exc:
        return f"{command!r} could not be saved to {path} either ({os_problem(exc)}): it is not in effect."
    return None


def _already_on(endpoints: Endpoints, command: str) -> bool:
    """Whether the switch ``command`` turns on was saved on already (a second panic says so)."""
    if command not in ("hold", "panic"):
        return False
    try:
        kept = read_switches(endpoints.data_dir / SWITCHES_FILE)
    except UnreadableSwitches:  # saved as off or unreadable: this press is what turns it on
        return False
    return kept.panicked if command == "panic" else kept.held


def _saved_text(endpoints: Endpoints, command: str, *, already: bool = False) -> str:
    if command == "resume":
        return (
            "Resumed: the service is not running; the next one to start (an agent's client"
            " starts one on demand) starts with neither hold nor the kill switch."
        )
    if command == "panic":
        what = "Kill switch already engaged" if already else "Kill switch engaged"
    else:
        what = "Already held" if already else "Held"
    return (
        f"{what}: the service for instance {endpoints.instance!r} is not running, so nothing is"
        " acting now; every service that starts for it (an agent's client starts one on"
        " demand) starts with this on, and refuses agents' browser calls until"
        " `ghostlight resume`."
    )
