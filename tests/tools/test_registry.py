"""The registry builds a handler for exactly the catalog's tools, and the shared instances exist
once: no tool module makes its own."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ghostlight_trio.catalog.registry import load_specs
from ghostlight_trio.tools.registry import ToolDeps, tool_handlers

TOOLS = Path(__file__).resolve().parents[2] / "ghostlight_trio" / "tools"
SHARED_MADE = re.compile(r"\b(PageChannel|ContextBook|ImageStore|Recorder|PlanBook|ComputerTool)\(")
"""What the tools keep or share between calls: made by the registry alone."""


class _Nothing:
    async def request(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        raise AssertionError("no browser traffic while building handlers")


def test_the_registry_serves_exactly_the_catalog() -> None:
    handlers = tool_handlers(ToolDeps(_Nothing(), None))  # type: ignore[arg-type]
    assert sorted(handlers) == sorted(spec.name for spec in load_specs())


def test_only_the_registry_makes_the_shared_instances() -> None:
    makers = {
        str(path.relative_to(TOOLS))
        for path in TOOLS.rglob("*.py")
        for line in path.read_text("utf-8").splitlines()
        if SHARED_MADE.search(line) and not line.lstrip().startswith(("#", "class "))
    }
    assert makers == {"registry.py"}
