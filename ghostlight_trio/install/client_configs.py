"""How each MCP client spells a local server entry, and how to read the launch command back.

The installer writes these entries and doctor reads them back; both pass only a dialect name,
a command and its arguments. The shapes name the MCP transport a client uses to start a local
server, so this module is one of the few outside ``transport`` allowed to
(``tests/architecture/test_service_is_protocol_neutral.py``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

Dialect = Literal["typed", "plain", "vscode", "opencode", "codex", "copilot"]
"""``typed``: Claude Code (``type`` + command/args/env); ``plain``: command/args/env (Claude
Desktop, Cursor, Windsurf, Gemini CLI and most others); ``vscode``: like ``typed`` under
``servers``; ``opencode``: ``type: local`` with one command array (opencode, Kilo Code);
``codex``: a TOML table of command/args/env; ``copilot``: Copilot CLI's ``type: local`` with
command/args/env and the ``tools`` it may call.
"""

_LOCAL_PROCESS = "stdio"


def server_entry(
    dialect: Dialect, command: str, args: Sequence[str], env: Mapping[str, str]
) -> dict[str, Any]:
    """The entry a client needs to launch ``command args...`` as a local MCP server."""
    if dialect == "opencode":
        entry: dict[str, Any] = {"type": "local", "command": [command, *args], "enabled": True}
        if env:
            entry["environment"] = dict(env)
        return entry
    body: dict[str, Any] = {"command": command, "args": list(args), "env": dict(env)}
    if dialect in ("typed", "vscode"):
        return {"type": _LOCAL_PROCESS, **body}
    if dialect == "copilot":
        return {"type": "local", **body, "tools": ["*"]}
    return body


def entry_argv(dialect: Dialect, entry: object) -> list[str] | None:
    """The command line an existing entry launches, or None when it is not a local command."""
    if not isinstance(entry, dict):
        return None
    if dialect == "opencode":
        command = entry.get("command")
        if isinstance(command, list) and command and all(isinstance(c, str) for c in command):
            return list(command)
        return None
    command = entry.get("command")
    args = entry.get("args", [])
    if not isinstance(command, str) or not isinstance(args, list):
        return None
    return [command, *(str(a) for a in args)]


def entry_env(dialect: Dialect, entry: object) -> dict[str, str]:
    """The extra environment an existing entry sets for its command."""
    if not isinstance(entry, dict):
        return {}
    value = entry.get("environment" if dialect == "opencode" else "env")
    if not isinstance(value, dict):
        return {}
    return {str(k): str(v) for k, v in value.items()}
