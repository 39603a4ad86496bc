"""Entry point Chrome runs as the native messaging host (``ghostlight-browser-connector``).

Chrome passes the caller's origin and a ``--parent-window`` argument; neither matters here. The
instance comes from ``GHOSTLIGHT_INSTANCE`` (written into the per-instance wrapper script).
Standard output carries only frames for Chrome; diagnostics go to standard error and a log file.
"""

from __future__ import annotations

import logging
import os
import sys

import trio

from ghostlight_trio.files.safe import PrivateFileHandler
from ghostlight_trio.transport.endpoints import Endpoints, UnsafeDirectoryError, ensure_private_dir

from .relay import Relay


def _configure_logging(endpoints: Endpoints | None) -> None:
    handlers: list[logging.Handler] = [logging.StreamHandler(sys.stderr)]
    if endpoints is not None:
        try:
            ensure_private_dir(endpoints.data_dir)
            handlers.append(PrivateFileHandler(endpoints.data_dir / "browser-connector.log"))
        except (OSError, UnsafeDirectoryError) as exc:  # it still relays; stderr says why
            print(f"ghostlight-browser-connector: not logging to a file: {exc}", file=sys.stderr)
    logging.basicConfig(
        level=logging.INFO,
        format="%(asctime)s ghostlight-browser-connector[%(process)d] %(levelname)s %(message)s",
        handlers=handlers,
    )


async def _relay(endpoints: Endpoints) -> int:
    chrome_in = trio.lowlevel.FdStream(os.dup(sys.stdin.fileno()))
    chrome_out = trio.lowlevel.FdStream(os.dup(sys.stdout.fileno()))
    relay = Relay(endpoints.browser_socket, chrome_in, chrome_out)
    return await relay.run()


USAGE = """usage: ghostlight-browser-connector [ORIGIN] [--parent-window=N]

Chrome's native messaging host for Ghostlight: Chrome starts it when the extension connects,
and it relays that port to the Ghostlight service. It is not run by hand; `ghostlight install`
registers it and `ghostlight doctor` checks it. The instance comes from GHOSTLIGHT_INSTANCE.
"""


def main() -> None:
    """Relay one native port; exit 0 when Chrome closes it."""
    if any(word in ("-h", "--help") for word in sys.argv[1:]):
        # Chrome passes only an origin and --parent-window; a person asking for help gets it
        # instead of a relay waiting on a terminal for native-messaging frames.
        print(USAGE, end="")
        sys.exit(0)
    try:
        endpoints = Endpoints.for_instance(None)
    except ValueError as exc:
        _configure_logging(None)
        logging.getLogger(__name__).error("cannot resolve the instance: %s", exc)
        sys.exit(2)
    _configure_logging(endpoints)
    sys.exit(trio.run(_relay, endpoints))


if __name__ == "__main__":
    main()
