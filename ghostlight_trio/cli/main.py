"""``ghostlight``: install, diagnose and run the service; launch a managed browser; the demo."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

import trio

from .. import __version__
from ..files.safe import UnsafeFile
from ..transport.endpoints import Endpoints, InstanceNameError, UnsafeDirectoryError
from . import (
    arguments,
    browser_options,
    bundle_command,
    completion,
    everyday,
    governance_commands,
    instance_list,
    instances,
    json_output,
    watch,
)
from .parsing import Parser, UsageError, subcommands

IDLE_TIMEOUT = 300.0


def build_parser() -> argparse.ArgumentParser:
    instance = argparse.ArgumentParser(add_help=False)
    instance.add_argument(
        "--instance",
        default=argparse.SUPPRESS,
        help="named instance (default: $GHOSTLIGHT_INSTANCE or 'default')",
    )
    parser = Parser(prog="ghostlight", description=__doc__, parents=[instance])
    parser.add_argument("--version", action="version", version=f"ghostlight {__version__}")
    commands = subcommands(parser, "command")

    service = commands.add_parser(
        "service",
        help="run the service in the foreground, or start|stop|restart it in the background",
        description="`ghostlight service` runs the service in the foreground. `start` runs it in"
        " the background and keeps it warm (it stays up until `stop`: a service you start by"
        " hand should not vanish after a quiet spell); `restart` is stop, then start.",
        parents=[instance],
    )
    service.add_argument(
        "action",
        nargs="?",
        choices=everyday.SERVICE_ACTIONS,
        help="start|stop|restart the background service (none: run in the foreground)",
    )
    service.add_argument(
        "--keep-warm", action="store_true", help="never exit when idle (start always keeps warm)"
    )
    service.add_argument(
        "--idle-timeout", type=arguments.seconds, metavar="SECONDS",
        help=f"seconds without clients or browsers before the service exits (default: {IDLE_TIMEOUT:g})",
    )  # fmt: skip
    json_output.add_option(service, "with start|stop|restart: " + json_output.HELP)
    governance_commands.add_service_options(service)
    service.set_defaults(command_parser=service)  # whose usage a refused combination shows

    status = commands.add_parser(
        "status", help="one-screen summary of the instance", parents=[instance]
    )
    json_output.add_option(status)
    everyday.add_parsers(commands, instance)
    governance_commands.add_parsers(commands, instance)
    instance_list.add_parser(commands)
    watch.add_parser(commands, instance)
    completion.add_parser(commands)
    browser_options.add_parsers(commands, instance)
    bundle_command.add_parser(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    if not argv:
        # Like git and pip: the bare command shows what it can do, as a usage error.
        parser.print_help()
        return 2
    try:
        args = parser.parse_args(argv)
    except UsageError as exc:
        if "--json" in argv:
            json_output.error(exc.message, usage=True)
        raise
    as_json = bool(getattr(args, "json", False))
    try:
        problem = _misuse(args)
        if problem:
            getattr(args, "command_parser", parser).error(problem)
    except UsageError as exc:
        if as_json:
            json_output.error(exc.message, usage=True)
        raise
    try:
        endpoints = instances.endpoints_for(args)
    except InstanceNameError as exc:
        if as_json:
            json_output.error(str(exc))
        print(f"ghostlight: {exc}", file=sys.stderr)
        return 2
    try:
        if as_json and _speaks_prose(args):
            return json_output.captured(
                lambda: _run(args, endpoints), command=args.command, instance=endpoints.instance
            )
        return _run(args, endpoints)
    except KeyboardInterrupt:
        return 130
    except (UnsafeDirectoryError, UnsafeFile) as exc:
        if as_json:
            json_output.error(str(exc))
        print(f"ghostlight: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        # The reader went away (`ghostlight audit show | head`): stop quietly, and keep the
        # interpreter's final flush from failing on the same pipe.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


def _misuse(args: argparse.Namespace) -> str:
    """Combinations argparse cannot refuse by itself ("" when there is none)."""
    if args.command == "service":
        if args.keep_warm and args.idle_timeout is not None:
            return "--keep-warm never exits when idle, so --idle-timeout means nothing with it"
        if args.json and not args.action:
            return "--json goes with service start|stop|restart, not the foreground service"
    if args.command == "logs" and args.json and args.follow:
        return "--json prints one object and ends; it cannot --follow the log"
    return ""


def _speaks_prose(args: argparse.Namespace) -> bool:
    """Commands whose ``--json`` is their prose wrapped as one object (the others build their
    own JSON)."""
    if args.command == "policy":
        return bool(args.policy_command == "explain")
    if args.command == "browser":
        return bool(args.browser_command == "launch")
    return args.command in ("service", *governance_commands.SAFETY_COMMANDS)


def _run(args: argparse.Namespace, endpoints: Endpoints) -> int:
    if args.command == "instances":
        return instance_list.run(args)
    if args.command == "bundle":
        return bundle_command.run(args)
    handled = governance_commands.dispatch(args, endpoints)
    if handled is not None:
        return handled
    handled = everyday.dispatch(args, endpoints)
    if handled is not None:
        return handled
    if args.command == "service":
        from .service_command import run

        idle = IDLE_TIMEOUT if args.idle_timeout is None else args.idle_timeout
        return run(endpoints, keep_warm=args.keep_warm, idle_timeout=idle)
    if args.command == "completion":
        return completion.run(build_parser(), args.shell)
    if args.command == "watch":
        return watch.run(endpoints, args.n)
    if args.command == "status":
        from .status import status

        return trio.run(status, endpoints, args.json)
    return browser_options.dispatch(args, endpoints)


if __name__ == "__main__":
    sys.exit(main())
