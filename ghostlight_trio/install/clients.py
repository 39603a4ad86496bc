"""The MCP clients we register with: where each keeps its user config and in which dialect."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

import attrs

from ..transport.client_configs import Dialect
from . import jsonc
from .changes import FileChange, read_text
from .places import Place
from .toml_table import TomlEditError, set_table


class EditRefused(RuntimeError):
    """The file cannot be edited safely; the message carries the manual step."""


@attrs.frozen
class ClientTarget:
    id: str
    label: str
    config: Callable[[Place], Path]
    container: tuple[str, ...]
    dialect: Dialect
    clis: tuple[str, ...] = ()
    fmt: Literal["json", "toml"] = "json"
    marker: Callable[[Place], Path] | None = None
    """A directory whose presence means the client is installed (default: the config's)."""

    def path(self, place: Place) -> Path:
        return self.config(place)

    def detected(self, place: Place) -> bool:
        """Installed here: its config file or directory exists, or its command is on PATH."""
        path = self.path(place)
        marker = self.marker(place) if self.marker else path.parent
        return path.exists() or marker.is_dir() or any(place.which(c) for c in self.clis)


def _opencode(place: Place) -> Path:
    directory = place.xdg_config / "opencode"
    jsonc_file = directory / "opencode.jsonc"
    return jsonc_file if jsonc_file.exists() else directory / "opencode.json"


def _codex(place: Place) -> Path:
    home = os.environ.get("CODEX_HOME")
    return (Path(home) if home else place.home / ".codex") / "config.toml"


CLIENTS: tuple[ClientTarget, ...] = (
    ClientTarget(
        "claude-code", "Claude Code", lambda p: p.home / ".claude.json", ("mcpServers",),
        "typed", ("claude",), marker=lambda p: p.home / ".claude",
    ),
    ClientTarget(
        "claude-desktop", "Claude Desktop",
        lambda p: p.app_config / "Claude" / "claude_desktop_config.json", ("mcpServers",), "plain",
    ),
    ClientTarget(
        "cursor", "Cursor", lambda p: p.home / ".cursor" / "mcp.json", ("mcpServers",), "plain",
        ("cursor",),
    ),
    ClientTarget(
        "vscode", "VS Code", lambda p: p.app_config / "Code" / "User" / "mcp.json", ("servers",),
        "vscode", ("code",),
    ),
    ClientTarget("opencode", "opencode", _opencode, ("mcp",), "opencode", ("opencode",)),
    ClientTarget("codex", "Codex", _codex, ("mcp_servers",), "codex", ("codex",), fmt="toml"),
    ClientTarget(
        "windsurf", "Windsurf", lambda p: p.home / ".codeium" / "windsurf" / "mcp_config.json",
        ("mcpServers",), "plain", ("windsurf",),
    ),
    ClientTarget(
        "gemini", "Gemini CLI", lambda p: p.home / ".gemini" / "settings.json", ("mcpServers",),
        "plain", ("gemini",),
    ),
)
CLIENT_IDS = tuple(c.id for c in CLIENTS)


def client(client_id: str) -> ClientTarget:
    return next(c for c in CLIENTS if c.id == client_id)


def read_entry(target: ClientTarget, place: Place, name: str) -> tuple[bool, Any]:
    """(file parsed, our entry or None). A missing file parses as empty."""
    text = read_text(target.path(place))
    if text is None or not text.strip():
        return True, None
    try:
        data: Any = _parse(target, text)
    except (ValueError, TomlEditError):
        return False, None
    for key in target.container:
        data = data.get(key) if isinstance(data, dict) else None
    return True, data.get(name) if isinstance(data, dict) else None


def _parse(target: ClientTarget, text: str) -> dict[str, Any]:
    if target.fmt == "toml":
        import tomllib

        try:
            return tomllib.loads(text)
        except RecursionError:  # tomllib follows nested arrays by recursion
            raise ValueError("arrays nest too deeply to edit safely") from None
    return jsonc.loads(text)


def plan_entry(
    target: ClientTarget, place: Place, name: str, entry: dict[str, Any] | None
) -> FileChange:
    """The change that sets (or with None removes) our entry; unchanged when already so."""
    path = target.path(place)
    before = read_text(path)
    text = before if before is not None and before.strip() else None
    if entry is None and text is None:
        return FileChange(path, before, before)
    try:
        if target.fmt == "toml":
            after = set_table(text or "", [*target.container, name], entry)
        else:
            after = _edit_json(target, text, name, entry)
    except (ValueError, TomlEditError) as exc:
        raise EditRefused(f"{path}: {exc}") from None
    if after == "" or (entry is None and after == "{}\n" and before is not None):
        after = None if before is not None else after
    return FileChange(path, before, after)


def _edit_json(target: ClientTarget, text: str | None, name: str, entry: Any) -> str:
    path = list(target.container)
    if entry is None:
        assert text is not None
        return jsonc.remove_member(text, path, name)
    base = text if text is not None else "{}\n"
    data = jsonc.loads(base)
    current: Any = data
    for key in path:
        current = current.get(key) if isinstance(current, dict) else None
    if isinstance(current, dict) and current.get(name) == entry:
        return base if text is not None else jsonc.set_member(base, path, name, entry)
    return jsonc.set_member(base, path, name, entry)
