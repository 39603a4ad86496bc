"""The command lines of ``browser launch|list|stop``, ``demo`` and ``replay``: each that may
launch a browser takes it by its path, as ``--browser-path`` (``--browser`` names a browser
id, as in ``install --browser chromium``)."""

from __future__ import annotations

import argparse
from typing import Any

import trio

from ..transport.endpoints import Endpoints
from . import json_output
from .parsing import subcommands


class _BrowserIsAnId(argparse.Action):
    """``--browser`` where a path is meant: refused with the option to use, never guessed."""

    def __call__(self, parser: argparse.ArgumentParser, *_: Any) -> None:
        parser.error(
            "--browser names a browser id (install/uninstall); give a browser's path with"
            " --browser-path PATH"
        )


def _add_browser_path(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--browser-path",
        metavar="PATH",
        help="the Chromium-family browser to run (default: the first one found on this machine)",
    )
    parser.add_argument("--browser", action=_BrowserIsAnId, help=argparse.SUPPRESS)


def add_parsers(commands: Any, instance: argparse.ArgumentParser) -> None:
    browser = commands.add_parser("browser", help="managed browser", parents=[instance])
    browser_commands = subcommands(browser, "browser_command")
    launch = browser_commands.add_parser(
        "launch", help="start a managed Chromium with the extension", parents=[instance]
    )
    launch.add_argument(
        "--headless", action="store_true", help="no window (also when there is no screen)"
    )
    _add_browser_path(launch)
    json_output.add_option(launch)
    listing = browser_commands.add_parser(
        "list",
        help="the instance's managed browser: pid, profile, headless or windowed, extension",
        parents=[instance],
    )
    json_output.add_option(listing)
    stop = browser_commands.add_parser(
        "stop",
        help="stop the instance's managed browser and every process of it",
        parents=[instance],
    )
    stop.add_argument(
        "--all", action="store_true", help="stop the managed browser of every instance"
    )
    json_output.add_option(stop)

    demo = commands.add_parser(
        "demo",
        help="drive a real MCP session against a managed headless Chromium",
        parents=[instance],
    )
    _add_browser_path(demo)
    demo.add_argument("--headed", action="store_true", help="show the browser window")
    demo.add_argument(
        "--out", default="ghostlight-demo.jpg", metavar="FILE", help="where to write the screenshot"
    )
    _add_replay(commands, instance)


def _add_replay(commands: Any, instance: argparse.ArgumentParser) -> None:
    replay = commands.add_parser(
        "replay",
        help="replay a script record_actions exported against the managed browser",
        parents=[instance],
    )
    replay.add_argument("file", metavar="FILE", help="the exported script (JSON with its steps)")
    replay.add_argument(
        "--tab", type=int, metavar="ID",
        help="replay in this tab, one of the replay's own workspace (default: a new tab)",
    )  # fmt: skip
    replay.add_argument(
        "--value", action="append", metavar="NAME=VALUE",
        help="the value of a {{secret:NAME}} placeholder (a password the recording withheld);"
        " repeat for each",
    )  # fmt: skip
    replay.add_argument(
        "--headless", action="store_true",
        help="launch the browser without a window when none is connected (also when there is"
        " no screen)",
    )  # fmt: skip
    _add_browser_path(replay)
    json_output.add_option(replay)


def dispatch(args: argparse.Namespace, endpoints: Endpoints) -> int:
    if args.command == "browser" and args.browser_command == "list":
        from .browser_manage import listing

        return trio.run(listing, endpoints, args.json)
    if args.command == "browser" and args.browser_command == "stop":
        from .browser_manage import stop

        return trio.run(stop, endpoints, args.all, args.json)
    if args.command == "replay":
        from .replay import run

        return run(args, endpoints)
    if args.command == "browser":
        from .browser_command import launch

        return trio.run(launch, endpoints, args.headless, args.browser_path)
    from .demo import demo

    return trio.run(demo, endpoints, args.browser_path, not args.headed, args.out)
