"""The bridge opening, both sides: version check, service proof, nothing else first.

Edge:    ClientHello(nonce)            ->
Service:                               <- ServiceHello (exact bytes B), ServiceProof(HMAC(secret, B))
Edge verifies the MAC over B before sending anything more; on failure it closes silently and
reports ``SQUATTER_MESSAGE`` to its own user. A service that cannot take one more connection
still proves itself, then sends ``Fatal`` with why in the same write, and closes.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable
from pathlib import Path

import trio

from .bridge import (
    BRIDGE_MAJOR,
    BRIDGE_MINOR,
    ClientHello,
    Fatal,
    ServiceHello,
    ServiceProof,
    VersionMismatch,
)
from .bridge_codec import BridgeProtocolError, decode_message, encode_message
from .endpoints import Endpoints
from .framing import FrameError
from .peercred import peer_credentials
from .proof import ProofError, load_secret, sign, verify
from .stream import BridgeClosed, MessageStream

HANDSHAKE_TIMEOUT = 5.0
HELLO_CEILING = 64 * 1024
"""Largest frame the service reads before the opening is done (a hello is a few dozen bytes)."""


class BridgeVersionError(Exception):
    """The two sides speak different bridge majors; upgrading one of them is the fix."""


class BridgeRefused(BridgeClosed):
    """The service proved itself and then refused the connection (it serves as many as it
    may); the message says why and what to do. Nothing sent on it was read."""


class ServiceUnresponsive(OSError):
    """A process of this user holds the socket but said nothing in time: a frozen or swamped
    service, not a squatter (a squatter running as this user could read the secret anyway)."""

    def __init__(self, instance: str, pid: int) -> None:
        who = f" (pid {pid})" if pid > 0 else ""
        super().__init__(
            f"the Ghostlight service for instance {instance!r}{who} accepted the connection but"
            f" did not answer within {HANDSHAKE_TIMEOUT:g} s: it may be frozen or overloaded;"
            f" stop it with `ghostlight service stop --instance {instance}`"
            + (f" or `kill {pid}`" if pid > 0 else "")
        )


class SecretMissing(OSError):
    """Something listens on the instance's socket, but this process has no secret to check it
    with: it and the service resolve different data directories. Starting a service cannot
    help (the instance is taken), and nothing unverified is ever spoken to."""

    def __init__(self, socket_path: Path, secret_path: Path) -> None:
        super().__init__(
            f"a Ghostlight service is listening on {socket_path} but this process has no secret"
            f" at {secret_path}: the client and the service see different data directories"
            " (GHOSTLIGHT_HOME / XDG_DATA_HOME); re-run `ghostlight install` from the same"
            " environment as the service"
        )


async def open_bridge(
    endpoints: Endpoints, *, role: str = "edge", client_version: str = ""
) -> tuple[MessageStream, ServiceHello]:
    """Connect to the instance's edge socket and authenticate the service.

    Raises OSError when nothing listens (``ServiceUnresponsive`` when this user's process
    listens but does not answer, ``SecretMissing`` when something listens but there is no
    secret to check it with), ProofError for a squatter, BridgeVersionError on a major
    mismatch.
    """
    try:
        secret = load_secret(endpoints.secret_file)
    except FileNotFoundError:
        # The service makes its secret before it listens: none means nothing runs yet, unless
        # something answers on the socket all the same and there is still none (a service
        # that made it meanwhile is simply read on the next attempt).
        if await _listening(endpoints.edge_socket) and not endpoints.secret_file.exists():
            raise SecretMissing(endpoints.edge_socket, endpoints.secret_file) from None
        raise
    sock_stream = await trio.open_unix_socket(str(endpoints.edge_socket))
    stream = MessageStream(sock_stream)
    heard = False
    try:
        with trio.fail_after(HANDSHAKE_TIMEOUT):
            nonce = secrets.token_bytes(16)
            await stream.send(
                ClientHello(
                    bridge_major=BRIDGE_MAJOR,
                    bridge_minor=BRIDGE_MINOR,
                    nonce=nonce,
                    role=role,  # type: ignore[arg-type]
                    client_version=client_version,
                )
            )
            hello_body = await stream.receive_body()
            heard = True
            hello = decode_message(hello_body)
            if isinstance(hello, VersionMismatch):
                raise BridgeVersionError(hello.message)
            if not isinstance(hello, ServiceHello) or hello.client_nonce != nonce:
                raise ProofError()
            proof = decode_message(await stream.receive_body())
            if not isinstance(proof, ServiceProof):
                raise ProofError()
            verify(secret, hello_body, proof.mac)
            if hello.bridge_major != BRIDGE_MAJOR:
                raise BridgeVersionError(
                    f"service speaks bridge {hello.bridge_major}.{hello.bridge_minor}, this"
                    f" connector speaks {BRIDGE_MAJOR}.{BRIDGE_MINOR}; upgrade both to one release"
                )
            refusal = await stream.peek_ready()  # sent with the proof, so it is here already
            if isinstance(refusal, Fatal):
                raise BridgeRefused(refusal.message)
    except trio.TooSlowError:
        silent_owner = _own_silent_peer(sock_stream, answered=heard)
        await stream.aclose()
        if silent_owner is not None:
            raise ServiceUnresponsive(endpoints.instance, silent_owner) from None
        raise ProofError() from None
    except (BridgeProtocolError, FrameError):
        await stream.aclose()
        raise ProofError() from None
    except BaseException:
        await stream.aclose()
        raise
    return stream, hello


async def _listening(socket_path: Path) -> bool:
    """Whether something accepts connections on ``socket_path`` (closed again unspoken)."""
    try:
        probe = await trio.open_unix_socket(str(socket_path))
    except OSError:
        return False
    await probe.aclose()
    return True


def _own_silent_peer(sock_stream: trio.SocketStream, *, answered: bool) -> int | None:
    """The pid of the peer when it runs as this user and sent nothing whole: a service too
    busy or stopped to answer. None for anyone else, who gets the fixed squatter refusal."""
    if answered:
        return None
    try:
        peer = peer_credentials(sock_stream.socket)  # type: ignore[arg-type]
    except OSError:
        return None
    return peer.pid if peer.uid == os.getuid() else None


async def accept_bridge(
    stream: MessageStream,
    *,
    secret: bytes,
    instance: str,
    service_version: str,
    admit: Callable[[ClientHello], str | None] | None = None,
) -> ClientHello:
    """Service side: read the client hello, answer with a signed hello, or refuse a major.

    ``admit`` is asked once the hello is read: None admits the client, a text refuses it. A
    refused client still gets the signed hello and proof (so it can trust the refusal) and then
    ``Fatal`` with that text, all in one write; then ``BridgeRefused`` is raised."""
    with trio.fail_after(HANDSHAKE_TIMEOUT):
        hello = await stream.receive()
        if not isinstance(hello, ClientHello):
            raise BridgeProtocolError("the first bridge frame must be ClientHello")
        if hello.bridge_major != BRIDGE_MAJOR:
            await stream.send(
                VersionMismatch(
                    supported_major=BRIDGE_MAJOR,
                    message=(
                        f"bridge major {hello.bridge_major} is not supported; this service speaks"
                        f" {BRIDGE_MAJOR}.{BRIDGE_MINOR}; upgrade both to one release"
                    ),
                )
            )
            raise BridgeVersionError(f"client bridge major {hello.bridge_major}")
        body = encode_message(
            ServiceHello(
                bridge_major=BRIDGE_MAJOR,
                bridge_minor=BRIDGE_MINOR,
                client_nonce=hello.nonce,
                service_nonce=secrets.token_bytes(16),
                service_version=service_version,
                instance=instance,
            )
        )
        refusal = admit(hello) if admit is not None else None
        answer = [body, encode_message(ServiceProof(mac=sign(secret, body)))]
        if refusal is not None:
            answer.append(encode_message(Fatal(message=refusal)))
        await stream.send_bodies(answer)
        if refusal is not None:
            raise BridgeRefused(refusal)
    return hello


__all__ = [
    "BridgeRefused",
    "BridgeVersionError",
    "ProofError",
    "SecretMissing",
    "ServiceUnresponsive",
    "accept_bridge",
    "open_bridge",
]
