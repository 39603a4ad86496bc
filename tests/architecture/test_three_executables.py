"""ADR-0096 gate: exactly three Ghostlight executables, and one MCP entry point.

``pyproject.toml`` declares exactly three console scripts (the service and CLI, the MCP
connector, the browser connector) and no GUI scripts or plugin entry points; the installer
registers MCP clients with that one MCP script and Chrome with the browser one; and the MCP
connector package has exactly one way in, its ``__main__``.
"""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

from ghostlight_trio.install.identity import BROWSER_CONNECTOR, MCP_CONNECTOR

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = {
    "ghostlight": "ghostlight_trio.cli.main:main",
    "ghostlight-mcp-connector": "ghostlight_mcp_connector.__main__:main",
    "ghostlight-browser-connector": "ghostlight_browser_connector.__main__:main",
}


def _project() -> dict[str, object]:
    project: dict[str, object] = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return project


def test_exactly_three_console_scripts() -> None:
    project = _project()
    assert project["scripts"] == SCRIPTS
    assert "gui-scripts" not in project and "entry-points" not in project


def test_each_script_names_a_main_that_exists() -> None:
    for target in SCRIPTS.values():
        module, _, function = target.partition(":")
        parts = module.split(".")
        base = ROOT / "connectors" if parts[0].endswith("_connector") else ROOT
        path = base.joinpath(*parts).with_suffix(".py")
        tree = ast.parse(path.read_text("utf-8"))
        assert any(
            isinstance(node, ast.FunctionDef) and node.name == function for node in tree.body
        ), target


def test_one_mcp_entry_point() -> None:
    assert MCP_CONNECTOR in SCRIPTS and BROWSER_CONNECTOR in SCRIPTS
    mcp_scripts = [name for name, target in SCRIPTS.items() if "mcp" in target]
    assert mcp_scripts == [MCP_CONNECTOR]
    package = ROOT / "connectors" / "ghostlight_mcp_connector"
    mains = [
        p.name
        for p in package.rglob("*.py")
        if p.name == "__main__.py" or '__name__ == "__main__"' in p.read_text("utf-8")
    ]
    assert mains == ["__main__.py"], mains
    # MCP clients are registered with that one script: the installer's only client entry.
    plan = (ROOT / "ghostlight_trio" / "install" / "plan.py").read_text("utf-8")
    assert plan.count("server_entry(") == 1 and "find_executable(MCP_CONNECTOR)" in plan
