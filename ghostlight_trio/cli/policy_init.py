"""``ghostlight policy init [FILE]``: a starting manifest to edit, never over an existing file.

A manifest is strict JSON (no comments), so the explanations live in its ``description``
fields, which the parser accepts and ``policy explain`` shows."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from ..governance.manifest import SCHEMA_VERSION
from . import json_output

DEFAULT_FILE = "ghostlight-policy.json"

EXAMPLE: dict[str, Any] = {
    "schema": SCHEMA_VERSION,
    "name": "my-policy",
    "version": "1",
    "description": (
        "An example policy: agents may read and act on the hosts a grant allows, nothing else."
        " mode 'observe' records what would be denied without denying it; switch to 'enforce'"
        " once `ghostlight policy simulate` on your audit trail shows no surprise. Capabilities:"
        " read, action, write, execute. Patterns: an exact host, '*.domain' (subdomains only)"
        " or '*'. Check with `ghostlight policy check FILE`; use with"
        " `ghostlight service restart --manifest FILE`."
    ),
    "mode": "observe",
    "sacred": ["bank.example"],
    "grants": [
        {
            "id": "docs",
            "description": "Reading and clicking on the documentation site, not its admin pages.",
            "hosts": {"allow": ["docs.example", "*.docs.example"], "deny": ["admin.docs.example"]},
            "allowed": ["read", "action"],
        },
        {
            "id": "local-dev",
            "description": "Everything on this machine's own servers (localhost, 127.0.0.1, ...).",
            "hosts": {"allow": ["localhost"]},
            "allowed": ["read", "action", "write", "execute"],
        },
    ],
}


def add_parser(policy_commands: Any, instance: argparse.ArgumentParser) -> None:
    init = policy_commands.add_parser(
        "init", help="write an example manifest to edit (never over an existing file)",
        parents=[instance],
    )  # fmt: skip
    init.add_argument("file", nargs="?", default=DEFAULT_FILE, help="where to write it")
    json_output.add_option(init)


def write_example(file: str, *, as_json: bool) -> int:
    path = Path(file)
    try:
        with path.open("x", encoding="utf-8") as handle:
            handle.write(json.dumps(EXAMPLE, indent=2) + "\n")
    except FileExistsError:
        return json_output.refuse(f"{path} already exists; it was left as it is (name another file)", as_json)
    except OSError as exc:
        return json_output.refuse(f"{path} cannot be written ({exc.strerror or exc})", as_json)
    if as_json:
        json_output.emit({"ok": True, "file": str(path)})
    else:
        print(
            f"wrote {path}: an example manifest in observe mode. Edit it, check it with"
            f" `ghostlight policy check {path}`, then use it with"
            f" `ghostlight service restart --manifest {path}`."
        )
    return 0
