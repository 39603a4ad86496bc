"""Anti-squat proof: the service authenticates its exact hello bytes with a per-user secret.

A process that grabbed the socket path first cannot read the 0600 secret file, so it cannot
produce the MAC; the edge then refuses with one fixed message and sends nothing more.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from pathlib import Path

from ..files.safe import UnsafeFile, open_private

SQUATTER_MESSAGE = (
    "ghostlight: refusing this endpoint: it did not prove it is your ghostlight service"
    " (another process may be squatting on the socket path)"
)
_SECRET_BYTES = 32


class ProofError(Exception):
    """The service's proof did not verify."""

    def __init__(self) -> None:
        super().__init__(SQUATTER_MESSAGE)


class SecretFileError(RuntimeError):
    """The secret file exists but is readable by others or is not ours."""


def load_or_create_secret(path: Path) -> bytes:
    """Read the instance secret, creating it 0600 on first use; refuse a shared one."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    try:  # O_EXCL: a link standing there is not written through either
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
    except FileExistsError:
        pass
    else:
        with os.fdopen(fd, "wb") as handle:
            handle.write(secrets.token_bytes(_SECRET_BYTES))
    return load_secret(path)


def load_secret(path: Path) -> bytes:
    """The instance secret: only the user's own owner-only regular file, never through a link
    or a second name (any other 0600 file would otherwise be taken for the secret)."""
    try:
        fd = open_private(path, os.O_RDONLY, refuse_shared=True)
    except UnsafeFile as exc:
        raise SecretFileError(
            f"{path} must be owned by you and mode 0600, a regular file of its own, but it"
            f" {exc.finding}; others may have read it: delete it and start the service again"
            " (it makes a fresh one)"
        ) from None
    with os.fdopen(fd, "rb") as handle:
        data = handle.read(_SECRET_BYTES * 64)
    if len(data) < _SECRET_BYTES:
        raise SecretFileError(f"{path} is truncated; delete it and restart the service")
    return data


def sign(secret: bytes, hello_body: bytes) -> bytes:
    return hmac.new(secret, hello_body, hashlib.sha256).digest()


def verify(secret: bytes, hello_body: bytes, mac: bytes) -> None:
    if not hmac.compare_digest(sign(secret, hello_body), mac):
        raise ProofError()
