"""Texts that tell the agent which tool to call next name tools (or arguments) it has.

Agents act on these hints literally: a hint naming an internal mechanism (``page_text``,
``find_text``) sends the agent to an unknown tool."""

from __future__ import annotations

import re
from pathlib import Path

from ghostlight_trio.catalog.registry import load_specs

ROOT = Path(__file__).resolve().parents[2]
SOURCES = [
    *sorted((ROOT / "extension").rglob("*.js")),
    *sorted((ROOT / "ghostlight_trio").rglob("*.py")),
    *sorted((ROOT / "connectors").rglob("*.py")),
]
# "Call read_page or find again", "use read_page / find to ...", "call tabs_context_mcp with ..."
HINT = re.compile(r"\b(?:[Cc]all|[Uu]se) ([a-z]+(?:_[a-z]+)*(?:(?: or | / |, )[a-z]+(?:_[a-z]+)*)*)")
NAME = re.compile(r"[a-z]+(?:_[a-z]+)*")
WORDS = {"it", "the", "a", "an", "this", "that", "them", "one", "with", "to", "again", "for"}


def suggested_names(text: str) -> set[str]:
    names: set[str] = set()
    for hint in HINT.finditer(text):
        for name in NAME.findall(hint.group(1)):
            if "_" in name or name not in WORDS:
                names.add(name)
    return {name for name in names if "_" in name or name == "find"}


def test_the_scan_sees_a_wrong_hint() -> None:
    assert suggested_names("Call page_text with a larger max_chars, or use read_page / find_text") == {
        "page_text",
        "read_page",
        "find_text",
    }


def test_every_suggested_tool_exists() -> None:
    specs = load_specs()
    # A hint may also name an argument ("use ref_id to read a subtree").
    callable_names = {spec.name for spec in specs} | {
        argument for spec in specs for argument in spec.input_schema.get("properties", {})
    }
    wrong = {
        f"{path.relative_to(ROOT)}: {name}"
        for path in SOURCES
        for name in suggested_names(path.read_text(encoding="utf-8"))
        if name not in callable_names
    }
    assert not wrong, sorted(wrong)
