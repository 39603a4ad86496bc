"""``run_service``: the service's whole life, from taking the instance lock to a clean exit.

It exits when asked (SIGTERM/SIGINT) or, unless kept warm, after a quiet window with no
stream, no browser and no active work. Active work is counted by the engine, independently of
streams, so a call still settling after its caller left keeps the service alive.
"""

from __future__ import annotations

import logging
import signal
from collections.abc import Callable

import attrs
import trio

from ..audit.unsettled import Trail, record_unsettled
from ..governance.assembly import watch_policy
from ..transport.endpoints import Endpoints
from ..transport.proof import load_or_create_secret
from .app import ServiceParts, build_service_parts
from .bridge_server import BridgeServer
from .catalog_watch import broadcast_catalog_changes
from .idle import wait_until_idle
from .listener import bind_owner_only_socket, remove_socket_file
from .lock import instance_lock
from .long_lived import set_aside_startup_state
from .streams import LiveStreams

log = logging.getLogger("ghostlight.service")

DEFAULT_IDLE_TIMEOUT = 300.0


@attrs.frozen
class RunningService:
    """Handed to ``task_status.started`` so embedders and tests can observe the service."""

    parts: ServiceParts
    streams: LiveStreams

    def is_idle(self) -> bool:
        browser = self.parts.browser
        return (
            len(self.streams) == 0
            and self.parts.engine.active_work == 0
            and (browser is None or browser.connected_count == 0)
        )


async def run_service(
    endpoints: Endpoints,
    *,
    keep_warm: bool,
    idle_timeout: float = DEFAULT_IDLE_TIMEOUT,
    build: Callable[[Endpoints], ServiceParts] = build_service_parts,
    handle_signals: bool = True,
    own_process: bool = False,
    task_status: trio.TaskStatus[RunningService] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Serve ``endpoints`` until shut down. Raises ``ServiceAlreadyRunning`` when another
    service holds the instance.

    ``own_process``: the process exists only to run this service, so its startup state may be
    set aside from garbage collection once it is built (see ``long_lived``)."""
    endpoints.ensure_private_dirs()
    with instance_lock(endpoints):
        secret = load_or_create_secret(endpoints.secret_file)
        parts = build(endpoints)
        # As the previous service left it: the calls it was cut off during are recorded.
        trail = Trail.open(endpoints.audit_file) if parts.audit is not None else None
        running = RunningService(parts=parts, streams=LiveStreams())
        server = BridgeServer(endpoints, secret, parts, running.streams)
        listener: trio.SocketListener | None = None
        try:
            async with trio.open_nursery() as nursery:
                if trail is not None and parts.audit is not None:
                    nursery.start_soon(record_unsettled, trail, parts.audit)
                # The browser's socket first: once the edge socket appears, all of it listens.
                if parts.browser is not None:
                    await nursery.start(parts.browser.serve)
                if own_process:  # before the edge socket appears, so no edge waits on it
                    set_aside_startup_state()
                listener = bind_owner_only_socket(endpoints.edge_socket)
                if parts.governance is not None:
                    # A switch saved by the CLI while nothing listened yet is not lost.
                    parts.governance.governor.catch_up_saved_switches()
                nursery.start_soon(server.serve, listener)
                nursery.start_soon(broadcast_catalog_changes, parts.catalog, running.streams)
                if parts.governance is not None:
                    nursery.start_soon(
                        watch_policy,
                        parts.governance.governor,
                        parts.catalog,
                        list(parts.engine.handlers),
                    )
                if handle_signals:
                    await nursery.start(_stop_on_signal, nursery.cancel_scope)
                if not keep_warm:
                    nursery.start_soon(
                        _stop_when_idle, running.is_idle, idle_timeout, nursery.cancel_scope
                    )
                log.info("service for instance %r listening", endpoints.instance)
                task_status.started(running)
        finally:
            if trail is not None:
                trail.close()
            if listener is not None:
                with trio.CancelScope(shield=True):
                    await listener.aclose()
                remove_socket_file(endpoints.edge_socket)
            log.info("service for instance %r stopped", endpoints.instance)


async def _stop_on_signal(
    scope: trio.CancelScope, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
) -> None:
    with trio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
        task_status.started()
        async for received in signals:
            log.info("received %s; shutting down", signal.Signals(received).name)
            scope.cancel()
            return


async def _stop_when_idle(
    is_idle: Callable[[], bool], idle_timeout: float, scope: trio.CancelScope
) -> None:
    await wait_until_idle(is_idle, idle_timeout=idle_timeout)
    log.info("idle for %g s; shutting down", idle_timeout)
    scope.cancel()
