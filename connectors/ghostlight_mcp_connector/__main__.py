"""``ghostlight-mcp-connector``: the MCP stdio server an MCP client starts.

Usage: ghostlight-mcp-connector [--instance NAME]
stdout carries only MCP protocol lines; diagnostics go to stderr.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
from typing import TYPE_CHECKING

from . import __version__

if TYPE_CHECKING:
    from .era import EraRouter

PAGE_SIZE_ENV = "GHOSTLIGHT_MCP_PAGE_SIZE"
"""Tools per tools/list page (default 100: one page); small values exercise pagination."""
LOG_LEVEL_ENV = "GHOSTLIGHT_LOG"
DEFAULT_LOG_LEVEL = logging.INFO
_SHOWN = 40
"""Characters of a bad ``GHOSTLIGHT_LOG`` value quoted in the warning."""
EARLY_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
"""The prelude's ``SHUTDOWN_SIGNALS``, caught before the modules that define them are loaded."""


def _page_size() -> int:
    from .pagination import DEFAULT_PAGE_SIZE

    value = os.environ.get(PAGE_SIZE_ENV, "")
    return int(value) if value.isdigit() and int(value) > 0 else DEFAULT_PAGE_SIZE


def build_router() -> EraRouter:
    from .era import EraRouter
    from .instructions import INSTRUCTIONS, INSTRUCTIONS_2026_SUFFIX

    return EraRouter(
        server_info={"name": "ghostlight", "version": __version__},
        instructions_2025=INSTRUCTIONS,
        instructions_2026=INSTRUCTIONS + INSTRUCTIONS_2026_SUFFIX,
        page_size=_page_size(),
    )


def log_level(value: str | None) -> tuple[int, str | None]:
    """The level ``GHOSTLIGHT_LOG`` names (``debug``, ``WARNING``, a number), and when it names
    none, the default with a warning to print: a typo in a client's config must not keep the
    connector from serving."""
    text = (value or "").strip()
    if not text:
        return DEFAULT_LOG_LEVEL, None
    if text.isascii() and text.isdigit():
        return int(text), None
    level = logging.getLevelNamesMapping().get(text.upper())
    if level is not None:
        return level, None
    shown = text if len(text) <= _SHOWN else text[:_SHOWN] + "..."
    return DEFAULT_LOG_LEVEL, (
        f"{LOG_LEVEL_ENV}={shown!r} is not a log level; using"
        f" {logging.getLevelName(DEFAULT_LOG_LEVEL)} (set it to DEBUG, INFO, WARNING, ERROR or"
        " CRITICAL)"
    )


def _note_early_signals() -> list[int]:
    """Until the prelude takes the shutdown signals over, note them rather than die of them: a
    client that stops the connector while its modules load would otherwise get a
    KeyboardInterrupt traceback on stderr (the runtime then shuts down gracefully)."""
    noted: list[int] = []
    for signum in EARLY_SIGNALS:
        signal.signal(signum, lambda received, _frame: noted.append(received))
    return noted


def _fill_closed_standard_fds() -> None:
    """A client may start the connector with stdin, stdout or stderr closed. The next file
    opened would then take that number, and protocol lines would go to it (an epoll
    descriptor, a socket): a closed one is opened on /dev/null instead, so its writes vanish
    as they would have."""
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            null = os.open(os.devnull, os.O_RDWR)
            if null != fd:
                os.dup2(null, fd)
                os.close(null)


def main(argv: list[str] | None = None) -> int:
    _fill_closed_standard_fds()
    early_signals = _note_early_signals()
    # Everything slow to load comes after that.
    from ghostlight_trio.transport.endpoints import Endpoints, InstanceNameError

    from .jsonrpc import LineSplitter
    from .prelude import Handover, answer_first_lines

    handover = Handover(LineSplitter(), signals=early_signals)
    handover.capture_signals()
    parser = argparse.ArgumentParser(
        prog="ghostlight-mcp-connector",
        description="MCP stdio server for Ghostlight (MCP 2025-11-25 and 2026-07-28).",
    )
    parser.add_argument(
        "--instance", help="named Ghostlight instance (default: $GHOSTLIGHT_INSTANCE or 'default')"
    )
    parser.add_argument("--version", action="version", version=__version__)
    args = parser.parse_args(argv)
    level, level_warning = log_level(os.environ.get(LOG_LEVEL_ENV))
    logging.basicConfig(
        stream=sys.stderr,
        level=level,
        format="ghostlight-mcp-connector: %(levelname)s %(name)s: %(message)s",
    )
    if level_warning is not None:
        logging.getLogger("ghostlight_mcp_connector").warning("%s", level_warning)
    try:
        endpoints = Endpoints.for_instance(args.instance)
    except InstanceNameError as exc:
        print(f"ghostlight-mcp-connector: {exc}", file=sys.stderr)
        return 2
    sys.stdout = sys.stderr  # a stray print must never corrupt the protocol stream
    router = build_router()
    # The first request is answered before Trio and the runtime are even imported: they are
    # most of a cold start, and the handshake needs neither.
    answer_first_lines(router, handover=handover)

    import trio

    from .runtime import run

    trio.run(run, endpoints, router, handover)
    return 0


if __name__ == "__main__":
    sys.exit(main())
