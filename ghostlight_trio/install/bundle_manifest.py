"""The ``manifest.json`` of the MCP bundle (MCPB manifest 0.3): how Claude Desktop starts the
connector, the settings it offers, and where the bundle runs.

Claude Desktop substitutes ``${__dirname}`` (where it unpacked the bundle) and
``${user_config.KEY}`` (what the person chose under the extension's settings) before it starts
the server, so the settings reach the product as the variables it already reads.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

from ..governance.sources import MANIFEST_ENV
from ..transport.endpoints import DEFAULT_INSTANCE, INSTANCE_ENV

MANIFEST_VERSION = "0.3"
ENTRY_POINT = "server/main.py"
LIB_DIR = "server/lib"
NAME = "ghostlight"


def python_command(platform: str = sys.platform) -> str:
    """``python`` on Windows (the launcher's name there), ``python3`` elsewhere: macOS has no
    ``python`` unless someone made one."""
    return "python" if platform == "win32" else "python3"


def manifest(
    version: str,
    description: str,
    *,
    compiled: Sequence[str],
    python: str,
    tools: Sequence[tuple[str, str]] = (),
) -> dict[str, Any]:
    """The manifest for this platform; ``compiled`` names the dependencies whose compiled
    extensions tie the bundle to this platform and to Python ``python`` (``3.11``); ``tools``
    (name, description) is what Claude Desktop shows before the bundle is installed."""
    major, minor = (int(part) for part in python.split(".")[:2])
    runtime = f">={major}.{minor}" + (f" <{major}.{minor + 1}" if compiled else "")
    compatibility: dict[str, Any] = {"runtimes": {"python": runtime}}
    if compiled:
        compatibility["platforms"] = [sys.platform]
    return {
        "manifest_version": MANIFEST_VERSION,
        "name": NAME,
        "display_name": "Ghostlight",
        "version": version,
        "description": description,
        "long_description": _long_description(compiled, python),
        "author": {"name": "Ghostlight contributors"},
        "license": "Apache-2.0",
        "keywords": ["browser", "chromium", "automation", "governance", "audit"],
        "tools": [{"name": name, "description": text} for name, text in tools],
        "server": {
            "type": "python",
            "entry_point": ENTRY_POINT,
            "mcp_config": {
                "command": python_command(),
                "args": ["${__dirname}/" + ENTRY_POINT],
                "env": {
                    "PYTHONPATH": "${__dirname}/" + LIB_DIR,
                    INSTANCE_ENV: "${user_config.instance}",
                    MANIFEST_ENV: "${user_config.policy_manifest}",
                },
            },
        },
        "user_config": {
            "instance": {
                "type": "string",
                "title": "Instance",
                "description": "The Ghostlight instance to use: its own service, sockets,"
                f" policy and audit trail ('{DEFAULT_INSTANCE}' unless you run several).",
                "default": DEFAULT_INSTANCE,
                "required": False,
            },
            "policy_manifest": {
                "type": "file",
                "title": "Policy manifest",
                "description": "A policy manifest (JSON, `ghostlight policy init` writes one)"
                " the service enforces; empty keeps the instance's own policy.",
                "required": False,
            },
        },
        "compatibility": compatibility,
    }


def first_sentence(text: str) -> str:
    """A tool description's first sentence: the catalog's are written for a model, at length."""
    head, dot, _ = text.partition(". ")
    return head + "." if dot else text


def _long_description(compiled: Sequence[str], python: str) -> str:
    text = (
        "Lets Claude drive your own Chromium browser through Ghostlight, one isolated"
        " workspace of tabs per client, every call governed by your policy and audited."
        " The bundle carries the MCP connector, the service (started on first use) and the"
        " browser's native host. The browser extension and its native host are set up with"
        " `ghostlight install` from a Ghostlight installation."
    )
    if compiled:
        text += (
            f"\n\nBuilt for {sys.platform} and Python {python}: {', '.join(compiled)}"
            " carry compiled extensions."
        )
    return text
