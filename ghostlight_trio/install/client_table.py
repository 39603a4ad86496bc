"""Which MCP clients install registers with: where each keeps its user config, under which
key, in which dialect, and how to tell it is installed.

Each location is the client's own documented user-scope file on Linux and macOS;
docs/mcp-clients.md names the page each one comes from, so a maintainer can recheck it.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Literal

import attrs

from .client_configs import Dialect
from .places import Place


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


def _first_existing(directory: Path, names: tuple[str, ...]) -> Path:
    """The first of ``names`` present in ``directory``, else the last (the one to create)."""
    return next((directory / n for n in names if (directory / n).exists()), directory / names[-1])


def _opencode(place: Place) -> Path:
    return _first_existing(place.xdg_config / "opencode", ("opencode.jsonc", "opencode.json"))


def _kilo(place: Place) -> Path:
    """Kilo Code documents kilo.jsonc as its global file; a kilo.json already there wins."""
    return _first_existing(place.xdg_config / "kilo", ("kilo.json", "kilo.jsonc"))


def _home_env(variable: str, default: str) -> Callable[[Place], Path]:
    """A client directory its own variable may move (CODEX_HOME, COPILOT_HOME)."""

    def directory(place: Place) -> Path:
        value = os.environ.get(variable)
        return Path(value) if value else place.home / default

    return directory


_codex_home = _home_env("CODEX_HOME", ".codex")
_copilot_home = _home_env("COPILOT_HOME", ".copilot")


def _vscode_extension(extension: str, file: str) -> Callable[[Place], Path]:
    """A VS Code extension's global MCP file, kept in its globalStorage settings folder."""
    return lambda p: p.app_config / "Code" / "User" / "globalStorage" / extension / "settings" / file


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
    ClientTarget(
        "codex", "Codex", lambda p: _codex_home(p) / "config.toml", ("mcp_servers",), "codex",
        ("codex",), fmt="toml",
    ),
    ClientTarget(
        "windsurf", "Windsurf", lambda p: p.home / ".codeium" / "windsurf" / "mcp_config.json",
        ("mcpServers",), "plain", ("windsurf",),
    ),
    ClientTarget(
        "gemini", "Gemini CLI", lambda p: p.home / ".gemini" / "settings.json", ("mcpServers",),
        "plain", ("gemini",),
    ),
    ClientTarget(
        "copilot-cli", "GitHub Copilot CLI", lambda p: _copilot_home(p) / "mcp-config.json",
        ("mcpServers",), "copilot", ("copilot",),
    ),
    ClientTarget(
        "cline", "Cline",
        _vscode_extension("saoudrizwan.claude-dev", "cline_mcp_settings.json"), ("mcpServers",),
        "plain",
    ),
    ClientTarget(
        "roo-code", "Roo Code",
        _vscode_extension("rooveterinaryinc.roo-cline", "mcp_settings.json"), ("mcpServers",),
        "plain",
    ),
    ClientTarget("kilo-code", "Kilo Code", _kilo, ("mcp",), "opencode", ("kilo",)),
    ClientTarget(
        "continue", "Continue",
        lambda p: p.home / ".continue" / "mcpServers" / "ghostlight.json", ("mcpServers",),
        "plain", ("cn",), marker=lambda p: p.home / ".continue",
    ),
    ClientTarget(
        "zed", "Zed", lambda p: p.xdg_config / "zed" / "settings.json", ("context_servers",),
        "plain", ("zed", "zeditor"),
    ),
    ClientTarget(
        "kiro", "Kiro", lambda p: p.home / ".kiro" / "settings" / "mcp.json", ("mcpServers",),
        "plain", ("kiro", "kiro-cli"), marker=lambda p: p.home / ".kiro",
    ),
    ClientTarget(
        "qwen", "Qwen Code", lambda p: p.home / ".qwen" / "settings.json", ("mcpServers",),
        "plain", ("qwen",),
    ),
    ClientTarget(
        "amp", "Amp", lambda p: p.home / ".config" / "amp" / "settings.json",
        ("amp.mcpServers",), "plain", ("amp",),
    ),
    ClientTarget(
        "antigravity", "Antigravity",
        lambda p: p.home / ".gemini" / "antigravity" / "mcp_config.json", ("mcpServers",),
        "plain", ("antigravity", "agy"),
    ),
    ClientTarget(
        "lm-studio", "LM Studio", lambda p: p.home / ".lmstudio" / "mcp.json", ("mcpServers",),
        "plain", ("lms",),
    ),
    ClientTarget(
        "junie", "JetBrains Junie", lambda p: p.home / ".junie" / "mcp" / "mcp.json",
        ("mcpServers",), "plain", ("junie",), marker=lambda p: p.home / ".junie",
    ),
)
CLIENT_IDS = tuple(c.id for c in CLIENTS)


def client(client_id: str) -> ClientTarget:
    return next(c for c in CLIENTS if c.id == client_id)
