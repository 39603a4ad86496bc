"""``ghostlight service``: the service in the foreground."""

from __future__ import annotations

import sys

import trio

from ..transport.endpoints import Endpoints, UnsafeDirectoryError
from ..transport.proof import SecretFileError


def run(endpoints: Endpoints, *, keep_warm: bool, idle_timeout: float) -> int:
    from ..service import ServiceAlreadyRunning, run_service
    from ..service.logs import configure_logging

    configure_logging(endpoints)
    try:
        trio.run(
            lambda: run_service(
                endpoints, keep_warm=keep_warm, idle_timeout=idle_timeout, own_process=True
            )
        )
    except (ServiceAlreadyRunning, SecretFileError, UnsafeDirectoryError) as exc:
        # Conditions of the machine, said in one line (also the last words a starter reads
        # back from the log), not a traceback.
        print(f"ghostlight: {exc}", file=sys.stderr)
        return 1
    return 0
