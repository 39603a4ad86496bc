"""``ghostlight``: install, diagnose and run the service; launch a managed browser; the demo."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

import trio

from .. import __version__
from ..files.safe import UnsafeFile
from ..transport.endpoints import InstanceNameError, UnsafeDirectoryError
from . import arguments, everyday, governance_commands, instance_list, instances


def _parser() -> argparse.ArgumentParser:
    instance = argparse.ArgumentParser(add_help=False)
    instance.add_argument(
        "--instance",
        default=argparse.SUPPRESS,
        help="named instance (default: $GHOSTLIGHT_INSTANCE or 'default')",
    )
    parser = argparse.ArgumentParser(prog="ghostlight", description=__doc__, parents=[instance])
    parser.add_argument("--version", action="version", version=f"ghostlight {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)

    service = commands.add_parser(
        "service",
        help="run the service in the foreground, or start|stop|restart it in the background",
        parents=[instance],
    )
    service.add_argument("action", nargs="?", choices=everyday.SERVICE_ACTIONS)
    service.add_argument("--keep-warm", action="store_true", help="never exit when idle")
    service.add_argument(
        "--idle-timeout", type=arguments.seconds, default=300.0, help="seconds of quiet before exiting"
    )
    governance_commands.add_service_options(service)

    status = commands.add_parser(
        "status", help="one-screen summary of the instance", parents=[instance]
    )
    status.add_argument("--json", action="store_true", help="machine-readable output")
    everyday.add_parsers(commands, instance)
    governance_commands.add_parsers(commands, instance)
    instance_list.add_parser(commands)

    browser = commands.add_parser("browser", help="managed browser")
    browser_commands = browser.add_subparsers(dest="browser_command", required=True)
    launch = browser_commands.add_parser(
        "launch", help="start a managed Chromium with the extension", parents=[instance]
    )
    launch.add_argument("--headless", action="store_true")
    launch.add_argument("--browser", help="path to a Chromium-family browser")

    demo = commands.add_parser(
        "demo",
        help="drive a real MCP session against a managed headless Chromium",
        parents=[instance],
    )
    demo.add_argument("--browser", help="path to a Chromium-family browser")
    demo.add_argument("--headed", action="store_true", help="show the browser window")
    demo.add_argument("--out", default="ghostlight-demo.jpg", help="where to write the screenshot")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        endpoints = instances.endpoints_for(args)
    except InstanceNameError as exc:
        print(f"ghostlight: {exc}", file=sys.stderr)
        return 2
    try:
        if args.command == "instances":
            return instance_list.run(args)
        handled = governance_commands.dispatch(args, endpoints)
        if handled is not None:
            return handled
        handled = everyday.dispatch(args, endpoints)
        if handled is not None:
            return handled
        if args.command == "service":
            from .service_command import run

            return run(endpoints, keep_warm=args.keep_warm, idle_timeout=args.idle_timeout)
        if args.command == "status":
            from .status import status

            return trio.run(status, endpoints, args.json)
        if args.command == "browser":
            from .browser_command import launch

            return trio.run(launch, endpoints, args.headless, args.browser)
        if args.command == "demo":
            from .demo import demo

            return trio.run(demo, endpoints, args.browser, not args.headed, args.out)
    except KeyboardInterrupt:
        return 130
    except (UnsafeDirectoryError, UnsafeFile) as exc:
        print(f"ghostlight: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        # The reader went away (`ghostlight audit show | head`): stop quietly, and keep the
        # interpreter's final flush from failing on the same pipe.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    return 2


if __name__ == "__main__":
    sys.exit(main())
