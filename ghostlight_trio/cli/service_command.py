"""``ghostlight service``: the service in the foreground."""

from __future__ import annotations

import sys

import trio

from ..files.safe import UnsafeFile
from ..transport.endpoints import Endpoints, UnsafeDirectoryError
from ..transport.proof import SecretFileError


def run(endpoints: Endpoints, *, keep_warm: bool, idle_timeout: float) -> int:
    from ..service import run_service
    from ..service.logs import configure_logging

    configure_logging(endpoints)
    try:
        trio.run(
            lambda: run_service(
                endpoints, keep_warm=keep_warm, idle_timeout=idle_timeout, own_process=True
            )
        )
    except BaseException as exc:
        problems = _conditions_of_the_machine(exc)
        if not problems:
            raise
        # Said in one line each (also the last words a starter reads back from the log), not
        # as a traceback: each names what to do.
        for problem in problems:
            print(f"ghostlight: {problem}", file=sys.stderr)
        return 1
    return 0


def _conditions_of_the_machine(exc: BaseException) -> list[BaseException]:
    """The startup failures the user fixes on their machine (another service, a shared
    secret, a foreign directory, a blocked socket path), when ``exc`` is only those; else []."""
    from ..service import ServiceAlreadyRunning
    from ..service.listener import SocketPathBlocked

    known = (
        ServiceAlreadyRunning, SecretFileError, UnsafeDirectoryError, UnsafeFile, SocketPathBlocked
    )
    leaves = _leaves(exc)
    return leaves if all(isinstance(leaf, known) for leaf in leaves) else []


def _leaves(exc: BaseException) -> list[BaseException]:
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for group in exc.exceptions for leaf in _leaves(group)]
    return [exc]
