"""Start the Ghostlight service for an instance when nothing answers on its socket.

The service outlives this connector: it runs in its own session with no inherited stdio, so a
client killing the connector's process group does not take the service down with it.
"""

from __future__ import annotations

import logging
import subprocess
import sys

_log = logging.getLogger(__name__)


def service_command(instance: str) -> list[str]:
    return [sys.executable, "-m", "ghostlight_trio", "service", "--instance", instance]


def launch_service(instance: str) -> subprocess.Popen[bytes] | None:
    """Spawn the service detached; None when it could not even be started."""
    command = service_command(instance)
    try:
        process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            close_fds=True,
        )
    except OSError as exc:
        _log.error("could not start the Ghostlight service (%s): %s", " ".join(command), exc)
        return None
    _log.info("started the Ghostlight service for instance %r (pid %d)", instance, process.pid)
    return process
