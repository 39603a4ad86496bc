"""``ghostlight bundle``: build the MCP bundle (``.mcpb``) Claude Desktop installs in one click.

It needs no instance: the instance and the policy manifest are settings the person picks in
Claude Desktop, not facts of the build.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import attrs

from .. import __version__
from . import json_output

MEGABYTE = 1024 * 1024


def add_parser(commands: Any) -> None:
    bundle = commands.add_parser(
        "bundle",
        help="build an MCP bundle (.mcpb) for Claude Desktop",
        description="Build one .mcpb file holding the MCP connector, the service and the native"
        " host with their dependencies, copied from this installation (nothing is downloaded)."
        " Open it with Claude Desktop to install it.",
    )
    bundle.add_argument(
        "--out", type=Path, metavar="FILE",
        help=f"where to write it (default: ghostlight-{__version__}.mcpb here)",
    )  # fmt: skip
    json_output.add_option(bundle)


def run(args: argparse.Namespace) -> int:
    from ..install.bundle import build, default_out
    from ..install.bundle_contents import BundleError

    out: Path = args.out or default_out(__version__)
    try:
        report = build(out)
    except (BundleError, OSError) as exc:
        return json_output.refuse(f"cannot build the bundle: {exc}", args.json)
    if args.json:
        json_output.emit({"ok": True, **attrs.asdict(report)})
        return 0
    print(
        f"Wrote {report.file}: {report.bytes / MEGABYTE:.1f} MB, {report.files} files,"
        f" sha256 {report.sha256}, in {report.seconds:g} s."
    )
    if report.platforms:
        compiled = [dep["name"] for dep in report.dependencies if dep["compiled"]]
        print(
            f"It runs on {', '.join(report.platforms)} with Python {report.python} only:"
            f" {', '.join(compiled)} carry compiled extensions built for this machine.",
            file=sys.stderr,
        )
    print(
        "To install it, open the file with Claude Desktop (or drag it onto Settings >"
        " Extensions) and choose Install; the instance and a policy manifest are its settings."
    )
    return 0
