"""``ghostlight-mcp-connector``: the MCP stdio server an MCP client starts.

Usage: ghostlight-mcp-connector [--instance NAME]
stdout carries only MCP protocol lines; diagnostics go to stderr.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys

from ghostlight_trio.transport.endpoints import Endpoints, InstanceNameError

from . import __version__
from .era import EraRouter
from .instructions import INSTRUCTIONS, INSTRUCTIONS_2026_SUFFIX
from .jsonrpc import LineSplitter
from .pagination import DEFAULT_PAGE_SIZE
from .prelude import Handover, answer_first_lines

PAGE_SIZE_ENV = "GHOSTLIGHT_MCP_PAGE_SIZE"
"""Tools per tools/list page (default 100: one page); small values exercise pagination."""
LOG_LEVEL_ENV = "GHOSTLIGHT_LOG"


def _page_size() -> int:
    value = os.environ.get(PAGE_SIZE_ENV, "")
    return int(value) if value.isdigit() and int(value) > 0 else DEFAULT_PAGE_SIZE


def build_router() -> EraRouter:
    return EraRouter(
        server_info={"name": "ghostlight", "version": __version__},
        instructions_2025=INSTRUCTIONS,
        instructions_2026=INSTRUCTIONS + INSTRUCTIONS_2026_SUFFIX,
        page_size=_page_size(),
    )


def main(argv: list[str] | None = None) -> int:
    handover = Handover(LineSplitter())
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
    logging.basicConfig(
        stream=sys.stderr,
        level=os.environ.get(LOG_LEVEL_ENV, "INFO").upper(),
        format="ghostlight-mcp-connector: %(levelname)s %(name)s: %(message)s",
    )
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
