"""Subcommands for everyday use: install, uninstall, doctor, logs and service start/stop/restart.

Kept apart from ``main`` so the parser there stays a short list of commands.
"""

from __future__ import annotations

import argparse
from collections.abc import Awaitable, Callable
from typing import Any

import trio

from ..install.clients import CLIENT_IDS
from ..install.hosts import BROWSER_IDS
from ..transport.endpoints import Endpoints
from . import arguments, json_output

SERVICE_ACTIONS = ("start", "stop", "restart")


def add_parsers(commands: Any, instance: argparse.ArgumentParser) -> None:
    for verb, text in (
        ("install", "register with MCP clients and browsers (idempotent)"),
        ("uninstall", "remove what install registered"),
    ):
        sub = commands.add_parser(verb, help=text, parents=[instance])
        sub.add_argument("--dry-run", action="store_true", help="show the exact changes only")
        sub.add_argument("--client", action="append", choices=CLIENT_IDS, help="only this client (repeatable)")
        sub.add_argument("--no-clients", action="store_true", help="leave MCP clients alone")
        sub.add_argument("--browser", action="append", choices=BROWSER_IDS, help="only this browser (repeatable)")
        if verb == "install":
            sub.add_argument("--autostart", action="store_true", help="write a per-user autostart")
            sub.add_argument(
                "--extension-id", action="append", metavar="ID",
                help="also allow this extension id (repeatable)",
            )  # fmt: skip
            sub.add_argument(
                "--wait", type=arguments.wait_seconds, default=0, metavar="SECONDS",
                help="then wait this long for the extension to connect; 0 does not wait",
            )
        json_output.add_option(sub, "print the plan or the changes made as one JSON object")
    doctor = commands.add_parser("doctor", help="check every link, with fixes", parents=[instance])
    json_output.add_option(doctor)
    logs = commands.add_parser("logs", help="recent service log", parents=[instance])
    logs.add_argument("-n", "--lines", type=arguments.count, default=50, help="how many lines")
    logs.add_argument(
        "-f", "--follow", action="store_true",
        help="then print each new line as it is written (waits for a log not yet written)",
    )  # fmt: skip
    json_output.add_option(logs, "print the lines as one JSON object")
    logs.set_defaults(command_parser=logs)  # whose usage a refused combination shows


def dispatch(args: argparse.Namespace, endpoints: Endpoints) -> int | None:
    """Run one of these commands; None when ``args`` names another command."""
    if args.command in ("install", "uninstall"):
        from .install_command import run

        return run(endpoints, args, installing=args.command == "install")
    if args.command == "doctor":
        from .doctor import doctor

        return trio.run(doctor, endpoints, args.json)
    if args.command == "logs":
        from .logs import show

        return show(endpoints, args.lines, args.follow, as_json=args.json)
    if args.command == "service" and getattr(args, "action", None):
        from . import service_control

        action: Callable[[Endpoints], Awaitable[int | None]] = getattr(service_control, args.action)
        return trio.run(action, endpoints)
    return None
