"""Connect the bridge to this instance's service, starting the service once if needed.

Bounded: a connection attempt gives up after ``CONNECT_BUDGET`` seconds. A squatter or a bridge
major mismatch fails at once with a message for the user; nothing is retried behind their back.
"""

from __future__ import annotations

import logging
import subprocess

import trio

from ghostlight_trio.transport.bridge import ServiceHello
from ghostlight_trio.transport.endpoints import Endpoints
from ghostlight_trio.transport.handshake import BridgeVersionError, ProofError, open_bridge
from ghostlight_trio.transport.proof import SQUATTER_MESSAGE, SecretFileError
from ghostlight_trio.transport.stream import BridgeClosed, MessageStream

from . import __version__
from .service_launcher import launch_service

CONNECT_BUDGET = 10.0
_FIRST_DELAY = 0.05
_MAX_DELAY = 0.5

_log = logging.getLogger(__name__)


class ConnectFailed(Exception):
    """No bridge now; the message says why in words fit for an MCP client's user."""


class BridgeConnector:
    """Opens bridge connections for one instance; remembers the service it started."""

    def __init__(self, endpoints: Endpoints, *, budget: float = CONNECT_BUDGET) -> None:
        self._endpoints = endpoints
        self._budget = budget
        self._launched: subprocess.Popen[bytes] | None = None

    async def connect(self) -> tuple[MessageStream, ServiceHello]:
        delay = _FIRST_DELAY
        launched_now = False
        with trio.move_on_after(self._budget):
            while True:
                try:
                    return await open_bridge(
                        self._endpoints, client_version=f"ghostlight-mcp-connector {__version__}"
                    )
                except ProofError:
                    _log.error("%s", SQUATTER_MESSAGE)
                    raise ConnectFailed(SQUATTER_MESSAGE) from None
                except BridgeVersionError as exc:
                    _log.error("%s", exc)
                    raise ConnectFailed(str(exc)) from None
                except SecretFileError as exc:
                    _log.error("%s", exc)
                    raise ConnectFailed(str(exc)) from None
                except (OSError, BridgeClosed) as exc:
                    _log.debug("service not reachable yet: %s", exc)
                self._reap()
                if not launched_now and self._launched is None:
                    self._launched = launch_service(self._endpoints.instance)
                    launched_now = True
                await trio.sleep(delay)
                delay = min(delay * 2, _MAX_DELAY)
        raise ConnectFailed(
            f"the Ghostlight service for instance {self._endpoints.instance!r} did not answer"
            f" within {self._budget:.0f} s"
        )

    def _reap(self) -> None:
        """Forget a service process we started once it has exited (no zombie left behind)."""
        if self._launched is not None and self._launched.poll() is not None:
            self._launched = None
