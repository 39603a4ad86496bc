"""The service side of the bridge: admit a connection, then serve its messages.

One nursery per admitted stream owns its call tasks, so a call outlives the connection only as
long as it takes to settle. When the stream is lost, its calls are cancelled (dispatched effects
drain), the workspaces it opened start their idle grace, and its unsent answers are discarded.
"""

from __future__ import annotations

import logging

import attrs
import trio

from .. import __version__
from ..catalog.registry import Catalog
from ..engine.engine import WorkEngine
from ..engine.session import WorkSession
from ..governance.explain import policy_lines
from ..governance.governor import Governor
from ..transport.bridge import (
    Cancel,
    CatalogProjection,
    CatalogRequest,
    ClientHello,
    ControlCommand,
    ControlResult,
    Fatal,
    Message,
    OpenWorkspace,
    Rejected,
    ReleaseWorkspace,
    Start,
    StatusRequest,
    WorkspaceOpened,
)
from ..transport.bridge_codec import BridgeProtocolError
from ..transport.bridge_intake import UnfitValues, decode_from_client
from ..transport.endpoints import Endpoints
from ..transport.framing import (
    BRIDGE_FRAME_CEILING,
    FrameBudgetExceeded,
    FrameError,
)
from ..transport.handshake import HELLO_CEILING, BridgeRefused, BridgeVersionError, accept_bridge
from ..transport.peercred import is_same_user
from ..transport.stream import BridgeClosed, MessageStream
from ..untrusted.excerpt import excerpt
from ..workspace import WorkspaceLimitReached
from .app import ServiceParts
from .outbox import Outbox, stand_in
from .status import status_report
from .streams import LiveStreams

log = logging.getLogger("ghostlight.service")

SERVICE_VERSION = __version__
_FATAL_SEND_TIMEOUT = 1.0
_FATAL_TEXT_LIMIT = 1000


@attrs.frozen
class BridgeServer:
    """Everything a connection needs from the service."""

    endpoints: Endpoints
    secret: bytes
    parts: ServiceParts
    streams: LiveStreams

    @property
    def catalog(self) -> Catalog:
        return self.parts.catalog

    @property
    def engine(self) -> WorkEngine:
        return self.parts.engine

    @property
    def governor(self) -> Governor | None:
        return None if self.parts.governance is None else self.parts.governance.governor

    async def serve(self, listener: trio.SocketListener) -> None:
        """Accept connections forever; each gets its own task in this nursery."""
        async with trio.open_nursery() as nursery:
            while True:
                connection = await listener.accept()
                nursery.start_soon(self.handle_connection, connection)

    async def handle_connection(self, connection: trio.SocketStream) -> None:
        if not is_same_user(connection.socket):  # type: ignore[arg-type]
            log.warning("refused a bridge connection from another user")
            await connection.aclose()
            return
        streams = self.streams
        if streams.opening >= streams.limits.max_opening:
            log.warning(
                "closed a bridge connection unread: %d others are still in their opening",
                streams.opening,
            )
            await connection.aclose()
            return
        stream = MessageStream(
            connection, budget=streams.frame_budget, decode=decode_from_client, stand_in=stand_in
        )
        stream.receive_ceiling = HELLO_CEILING  # raised once the client is admitted
        placed: list[str] = []

        def admit(hello: ClientHello) -> str | None:
            refusal = streams.reserve(hello.role)
            if refusal is None:
                placed.append(hello.role)
            else:
                log.warning("refused a bridge connection: %s", refusal)
            return refusal

        streams.opening += 1
        try:
            hello = await accept_bridge(
                stream,
                secret=self.secret,
                instance=self.endpoints.instance,
                service_version=SERVICE_VERSION,
                admit=admit,
            )
        except (BridgeClosed, BridgeProtocolError, BridgeVersionError, FrameError) as exc:
            if not isinstance(exc, BridgeRefused):
                log.info("bridge opening failed: %s", exc)
            return await self._close_unadmitted(stream, placed)
        except trio.TooSlowError:
            log.info("bridge opening timed out")
            return await self._close_unadmitted(stream, placed)
        finally:
            streams.opening -= 1
        stream.receive_ceiling = BRIDGE_FRAME_CEILING
        try:
            await self._serve_admitted(stream, hello.role)
        except* Exception as failure:
            # A fault in one stream ends that stream (its connector reconnects and reattaches),
            # never the service every other client is using.
            log.error("a bridge stream failed and was closed", exc_info=failure)

    async def _close_unadmitted(self, stream: MessageStream, placed: list[str]) -> None:
        for role in placed:
            self.streams.unreserve(role)
        with trio.CancelScope(shield=True):
            await stream.aclose()

    async def _serve_admitted(self, stream: MessageStream, role: str) -> None:
        outbox = Outbox(stream)
        async with trio.open_nursery() as calls:
            session = self.engine.open_session(calls, outbox)
            self.streams.add(outbox, role, reserved=True)
            try:
                async with trio.open_nursery() as io:
                    io.start_soon(_write_until_lost, outbox, io.cancel_scope)
                    await self._read_until_lost(stream, outbox, session)
                    io.cancel_scope.cancel()
            finally:
                self.streams.discard(outbox)
                session.abandon()
                outbox.close()
                with trio.CancelScope(shield=True):
                    await stream.aclose()
            if session.active:
                log.info("stream lost; %d calls still settling", session.active)

    async def _read_until_lost(
        self, stream: MessageStream, outbox: Outbox, session: WorkSession
    ) -> None:
        while True:
            await outbox.wait_for_room()
            if stream.frame_ready:
                # Frames that arrived together are taken one scheduler pass apart, so an edge
                # sending a burst cannot hold the loop while its own calls and others wait.
                await trio.lowlevel.checkpoint()
            try:
                message = await stream.receive()
            except BridgeClosed:
                return
            except FrameBudgetExceeded as exc:
                await _send_fatal(stream, str(exc))
                return
            except UnfitValues as unfit:  # answered as that call's bad arguments
                session.start(unfit.start, unfit=(unfit.field, unfit.problem))
                continue
            except (BridgeProtocolError, FrameError) as exc:
                await _send_fatal(stream, f"protocol violation: {exc}")
                return
            if not self._dispatch(message, outbox, session):
                await _send_fatal(stream, f"unexpected {type(message).__name__} from the connector")
                return

    def _projection(self, message: CatalogRequest) -> CatalogProjection:
        """The advertised catalog; with a restriction, only the tools it could allow too (the
        same judgement as the list itself, never a boundary), marked restricted."""
        tools = self.catalog.descriptors()
        if message.restriction is None:
            restricted = self.catalog.restricted
        else:
            restricted = True
            if self.governor is not None:
                restriction = self.governor.restriction(message.restriction)
                allowed = self.governor.advertised(
                    self.catalog.advertised(), [tool.name for tool in tools], restriction
                )
                tools = [tool for tool in tools if tool.name in allowed]
        return CatalogProjection(
            sequence=message.sequence,
            generation=self.catalog.generation,
            tools=tools,
            restricted=restricted,
        )

    def _dispatch(self, message: Message, outbox: Outbox, session: WorkSession) -> bool:
        """Handle one message; False when it has no business arriving at the service."""
        if isinstance(message, Start):
            session.start(message)
        elif isinstance(message, Cancel):
            session.cancel(message.work_id)
        elif isinstance(message, CatalogRequest):
            outbox.post(self._projection(message))
        elif isinstance(message, OpenWorkspace):
            outbox.post(self._open_workspace(message, session))
        elif isinstance(message, ReleaseWorkspace):
            session.release_workspace(message.workspace_id)
        elif isinstance(message, StatusRequest):
            outbox.post(
                status_report(
                    message.sequence,
                    service_version=SERVICE_VERSION,
                    streams=self.streams,
                    workspaces=self.parts.workspaces,
                    engine=self.engine,
                    browser=self.parts.browser,
                    governor=self.governor,
                )
            )
        elif isinstance(message, ControlCommand):
            outbox.post(self._control(message, self.streams.role_of(outbox)))
        else:
            return False
        return True

    def _control(self, message: ControlCommand, role: str | None) -> ControlResult:
        """The user's switches are taken only from control streams, never from an agent's edge."""
        if role != "control" or self.governor is None:
            return ControlResult(message.sequence, False, "Control commands need a control stream.")
        if message.command == "explain":  # the policy in force here, the last good one if kept
            lines = policy_lines(self.governor.state)
            return ControlResult(message.sequence, True, "\n".join(lines))
        ok, text = self.governor.control(message.command)
        log.warning("control command %r: %s", message.command, text)
        return ControlResult(message.sequence, ok, text)

    def _open_workspace(
        self, message: OpenWorkspace, session: WorkSession
    ) -> WorkspaceOpened | Rejected:
        try:
            workspace, reattached = session.open_workspace(message.reattach, message.client_label)
        except WorkspaceLimitReached as exc:
            return Rejected(sequence=message.sequence, code="busy", message=str(exc))
        log.info(
            "workspace %s %s",
            self.parts.workspaces.fingerprint(workspace),
            "reattached" if reattached else "opened",
        )
        return WorkspaceOpened(
            sequence=message.sequence, workspace_id=workspace, reattached=reattached
        )


async def _write_until_lost(outbox: Outbox, io_scope: trio.CancelScope) -> None:
    try:
        await outbox.drain()
    except BridgeClosed:
        pass
    io_scope.cancel()


async def _send_fatal(stream: MessageStream, text: str) -> None:
    text = excerpt(text, _FATAL_TEXT_LIMIT)  # it may quote what the client sent
    log.warning("closing a bridge stream: %s", text)
    with trio.move_on_after(_FATAL_SEND_TIMEOUT):
        try:
            await stream.send(Fatal(message=text))
        except BridgeClosed:
            pass
