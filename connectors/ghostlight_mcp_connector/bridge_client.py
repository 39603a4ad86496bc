"""Connect the bridge to this instance's service, starting the service once if needed.

Bounded: a connection attempt gives up after ``CONNECT_BUDGET`` seconds. A squatter, a bridge
major mismatch, a service this process has no secret for, a service that serves as many
connections as it may, or a service that stops as it starts fails at once with a message for
the user; nothing is retried behind their back. Of several
connectors that find no service at once, only the one holding the instance's spawn lock starts
it; the others wait for its socket.
"""

from __future__ import annotations

import logging

import trio

from ghostlight_trio.launch.spawn import (
    ServiceLaunch,
    SpawnClaim,
    claim_spawn,
    service_lock_holder,
    spawn_service,
)
from ghostlight_trio.transport.bridge import ServiceHello
from ghostlight_trio.transport.endpoints import Endpoints, UnsafeDirectoryError
from ghostlight_trio.transport.handshake import (
    BridgeRefused,
    BridgeVersionError,
    ProofError,
    SecretMissing,
    ServiceUnresponsive,
    open_bridge,
)
from ghostlight_trio.transport.proof import SQUATTER_MESSAGE, SecretFileError
from ghostlight_trio.transport.stream import BridgeClosed, MessageStream

from . import __version__

CONNECT_BUDGET = 10.0
QUIET_BUDGET = 3.0
"""How long a connection that may not start the service waits for one to appear (a restart
stops one service before it starts the next)."""
NO_SERVICE = "no Ghostlight service is running (the next request starts one)"
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
        self._launched: ServiceLaunch | None = None
        self._claim: SpawnClaim | None = None
        """Held from this process's start of the service until the connection attempt ends."""

    async def connect(self, *, launch: bool = True) -> tuple[MessageStream, ServiceHello]:
        """A bridge to the instance's service. ``launch=False`` reaches only one that runs or
        is starting now (waiting up to ``QUIET_BUDGET`` for one being restarted), and fails
        with ``NO_SERVICE`` rather than start one."""
        try:
            return await self._connect(launch)
        finally:
            self._release_claim()

    async def _connect(self, launch: bool) -> tuple[MessageStream, ServiceHello]:
        delay = _FIRST_DELAY
        launched_now = False
        quiet_until = trio.current_time() + QUIET_BUDGET
        with trio.move_on_after(self._budget):
            while True:
                try:
                    return await open_bridge(
                        self._endpoints, client_version=f"ghostlight-mcp-connector {__version__}"
                    )
                except ProofError:
                    _log.error("%s", SQUATTER_MESSAGE)
                    raise ConnectFailed(SQUATTER_MESSAGE) from None
                except (BridgeVersionError, BridgeRefused, ServiceUnresponsive, SecretMissing) as exc:
                    _log.error("%s", exc)
                    raise ConnectFailed(str(exc)) from None
                except SecretFileError as exc:
                    _log.error("%s", exc)
                    raise ConnectFailed(str(exc)) from None
                except (OSError, BridgeClosed) as exc:
                    _log.debug("service not reachable yet: %s", exc)
                if launched_now:
                    self._fail_if_the_start_failed()
                self._reap()
                if not launch:
                    starting = service_lock_holder(self._endpoints) is not None
                    if not starting and trio.current_time() >= quiet_until:
                        raise ConnectFailed(NO_SERVICE)
                elif not launched_now and self._launched is None and self._may_start():
                    self._launched = self._launch()
                    launched_now = True
                await trio.sleep(delay)
                delay = min(delay * 2, _MAX_DELAY)
        raise ConnectFailed(
            f"the Ghostlight service for instance {self._endpoints.instance!r} did not answer"
            f" within {self._budget:.0f} s"
        )

    def _may_start(self) -> bool:
        """Whether this process is to start the service now: it holds the spawn lock (whoever
        else holds it is starting the service already) and no service holds the instance (one
        that is starting answers soon; once one that is stopping is gone, a later attempt
        starts a fresh one)."""
        if self._claim is None:
            try:
                self._claim = claim_spawn(self._endpoints)
            except (OSError, UnsafeDirectoryError) as exc:
                _log.error("could not start the Ghostlight service: %s", exc)
                raise ConnectFailed(f"could not start the Ghostlight service: {exc}") from None
            if self._claim is None:
                _log.debug("another process is starting the service; waiting for it")
                return False
        if service_lock_holder(self._endpoints) is not None:
            _log.debug("a service holds the instance; waiting for it to answer")
            self._release_claim()
            return False
        return True

    def _release_claim(self) -> None:
        if self._claim is not None:
            self._claim.release()
            self._claim = None

    def _launch(self) -> ServiceLaunch:
        """Start the service; where it cannot even be started, say why now."""
        try:
            launch = spawn_service(self._endpoints)
        except (OSError, UnsafeDirectoryError) as exc:
            _log.error("could not start the Ghostlight service: %s", exc)
            raise ConnectFailed(f"could not start the Ghostlight service: {exc}") from None
        _log.info(
            "started the Ghostlight service for instance %r (pid %d)",
            self._endpoints.instance,
            launch.process.pid,
        )
        return launch

    def _fail_if_the_start_failed(self) -> None:
        """The service this attempt started has stopped and none other holds the instance: it
        will not answer, and its own last words say why. (One that lost the race to another
        start stops too, but then the winner holds the lock and is waited for.)"""
        failure = self._launched.failure() if self._launched is not None else None
        if failure is not None:
            self._launched = None
            _log.error("%s", failure)
            raise ConnectFailed(failure)

    def _reap(self) -> None:
        """Forget a service process we started once it has exited (no zombie left behind)."""
        if self._launched is not None and self._launched.process.poll() is not None:
            self._launched = None
