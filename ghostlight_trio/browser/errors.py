"""Typed failures of a browser request, so tools can report each one truthfully."""

from __future__ import annotations

from typing import Any

from ..engine.contracts import NotDispatched


class BrowserFailure(Exception):
    """Base for every way a browser request can fail."""

    hop = "extension"

    @property
    def message(self) -> str:
        return str(self.args[0]) if self.args else ""


class BrowserUnavailable(BrowserFailure, NotDispatched):
    """No browser was attached within the bounded wait; nothing was sent."""


class BrowserRefused(BrowserFailure, NotDispatched):
    """The service refused the request before sending any byte (e.g. too large); nothing ran."""


class BrowserError(BrowserFailure):
    """The extension answered with an error frame; ``hop`` says where it failed.

    ``dialog`` is the JavaScript dialog the extension sent along when an open one refused the
    request (code ``dialog_open``), so the tool can name it without asking again.
    ``completed``: for a ``cdp_sequence``, how many of its commands were answered before it
    failed (so a tool can say exactly how much of an action took effect).
    ``delivered``: the request had reached the page when it failed (its page crashed under
    it), so whether it took effect is not known.
    ``error_page``: for a request that met the browser's error page (code ``error_page``),
    what that page shows failed (``netError``, and ``httpStatus`` for an HTTP error), when the
    extension could read it.
    """

    def __init__(
        self,
        message: str,
        hop: str = "extension",
        code: str | None = None,
        dialog: dict[str, Any] | None = None,
        *,
        completed: int | None = None,
        delivered: bool = False,
        error_page: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.hop = hop
        self.code = code
        self.dialog = dialog
        self.completed = completed
        self.delivered = delivered
        self.error_page = error_page


class OutcomeUnknown(BrowserFailure):
    """The request frame was sent but no reply will come: the effect may or may not have run."""

    def __init__(self, message: str, proof: str = "") -> None:
        super().__init__(message)
        self.proof = proof


class BrowserStopped(BrowserFailure):
    """The extension stopped the request on the service's ``stop`` (the kill switch).

    A reply did come, so nothing is left pending; but whatever the request had already set
    going in the browser (a navigation, a reload) may or may not have taken effect.
    """

    def __init__(self, message: str, proof: str = "", *, by_caller: bool = False) -> None:
        super().__init__(message)
        self.proof = proof
        self.by_caller = by_caller
        """Stopped on the service's ``stop_request`` because the call's caller cancelled it,
        not by the kill switch."""
