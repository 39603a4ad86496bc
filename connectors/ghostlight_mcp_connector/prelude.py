"""The client's first request, answered before the async runtime is loaded.

An MCP client's first line is ``initialize`` (or the ``server/discover`` probe); its answer
needs nothing but the sans-IO router. Loading Trio costs most of a cold start, so ``main``
reads that first line with plain blocking I/O, lets the router answer it, and writes the
answer at once; the runtime then starts with the router as it was left, the actions it asked
for that are not protocol lines (connect the bridge, ...), in order, and the splitter holding
any partial next line. Everything here is bounded: if no complete line arrives within
``FIRST_LINE_WAIT`` the runtime simply takes over the reading.
"""

from __future__ import annotations

import logging
import os
import select
import signal
import time
from types import FrameType

import attrs

from . import jsonrpc
from .actions import Action, WriteMessage
from .era import EraRouter
from .jsonrpc import LineSplitter

FIRST_LINE_WAIT = 0.5
"""Seconds to wait for the first complete line before handing the reading to the runtime."""
_READ_CHUNK = 64 * 1024
SHUTDOWN_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)

_log = logging.getLogger(__name__)


@attrs.define
class Handover:
    """What the runtime starts from."""

    splitter: LineSplitter
    """Holds any partial line read so far; the runtime keeps feeding it."""
    pending: list[Action] = attrs.Factory(list)
    """Actions the router asked for that need the runtime, in the order asked."""
    at_eof: bool = False
    """stdin already ended (the runtime then only finishes what was asked)."""
    signals: list[int] = attrs.Factory(list)
    """Shutdown signals that arrived before the runtime could take them (see ``capture``)."""
    stdout_gone: bool = False
    """A write to stdout failed (closed, full, a broken pipe); later lines are dropped."""

    def capture_signals(self) -> None:
        """Until the runtime installs its own handlers, a shutdown signal is remembered rather
        than fatal, so the runtime still closes what the first lines opened (a listen, a
        workspace) gracefully."""

        def remember(signum: int, _frame: FrameType | None) -> None:
            self.signals.append(signum)

        for signum in SHUTDOWN_SIGNALS:
            signal.signal(signum, remember)


def answer_first_lines(
    router: EraRouter,
    *,
    stdin: int = 0,
    stdout: int = 1,
    wait: float = FIRST_LINE_WAIT,
    handover: Handover | None = None,
) -> Handover:
    """Read stdin until at least one complete line (or EOF, or ``wait``, or a shutdown signal),
    feed every complete line to ``router``, write its protocol lines to ``stdout`` and hand
    over the rest."""
    handover = handover or Handover(LineSplitter())
    deadline = time.monotonic() + wait
    while not handover.signals:
        remaining = deadline - time.monotonic()
        if remaining <= 0 or not _readable(stdin, remaining):
            return handover
        data = os.read(stdin, _READ_CHUNK)
        if not data:
            handover.at_eof = True
            lines = list(handover.splitter.finish())
        else:
            lines = list(handover.splitter.feed(data))
        for line in lines:
            _perform(router.receive_line(line), handover, stdout)
        if lines or handover.at_eof:
            return handover
    return handover


def _readable(fd: int, timeout: float) -> bool:
    try:
        ready, _, _ = select.select([fd], [], [], timeout)
    except (OSError, ValueError):  # not selectable: let the runtime read it
        return False
    return bool(ready)


def _perform(actions: list[Action], handover: Handover, stdout: int) -> None:
    for action in actions:
        if isinstance(action, WriteMessage):
            if handover.stdout_gone:
                _log.debug("stdout is closed; dropped a line")
            elif not _write_all(stdout, jsonrpc.encode(action.payload)):
                handover.stdout_gone = True
        else:
            handover.pending.append(action)


def _write_all(fd: int, data: bytes) -> bool:
    """Write all of ``data``; False when stdout cannot take it (closed, full, a broken pipe).
    Like the runtime's writer, that is not an error: the line is dropped without a word."""
    view = memoryview(data)
    while view:
        try:
            written = os.write(fd, view)
        except BlockingIOError:
            select.select([], [fd], [])
            continue
        except OSError:  # the client is gone or stdout is unusable; the runtime will see it too
            return False
        view = view[written:]
    return True
