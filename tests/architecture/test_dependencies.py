"""The runtime dependencies are exactly what the shipped code imports: a package that only the
tests use belongs in the ``dev`` extra, and nothing shipped may import a dev-only package."""

from __future__ import annotations

import ast
import sys
import tomllib
from pathlib import Path

import regex

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = [ROOT / "ghostlight_trio", ROOT / "connectors"]
OURS = {"ghostlight_trio", "ghostlight_mcp_connector", "ghostlight_browser_connector"}
IMPORT_NAMES = {"pillow": "PIL"}
"""Distributions whose import name is not their project name."""


def _imported_roots() -> set[str]:
    roots: set[str] = set()
    for base in SHIPPED:
        for path in base.rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Import):
                    roots.update(alias.name.split(".")[0] for alias in node.names)
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    roots.add(node.module.split(".")[0])
    return roots - OURS - set(sys.stdlib_module_names) - {"__future__"}


def _names(requirements: list[str]) -> set[str]:
    names = set()
    for requirement in requirements:
        project = regex.match(r"[A-Za-z0-9_.-]+", requirement)
        assert project is not None
        name = project.group(0).lower()
        names.add(IMPORT_NAMES.get(name, name.replace("-", "_")))
    return names


def test_runtime_dependencies_are_what_the_shipped_code_imports() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    runtime = _names(project["dependencies"])
    dev_only = _names(project["optional-dependencies"]["dev"]) - runtime
    imported = _imported_roots()
    assert imported - runtime == set(), "shipped code imports packages it does not depend on"
    assert runtime - imported == set(), "runtime dependencies no shipped module imports"
    assert imported & dev_only == set()
