"""The 13 trained tools are served exactly as the canonical catalog declares them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ghostlight_trio.catalog.registry import Catalog, load_specs
from ghostlight_trio.tools.registry import ToolDeps, tool_handlers

CANONICAL = Path(__file__).parents[2] / "ghostlight_trio" / "catalog" / "tool-catalog.json"
TRAINED = 13
TRAINED_SERVED = (
    "update_plan", "tabs_context_mcp", "tabs_create_mcp", "navigate", "computer", "find",
    "form_input", "get_page_text", "javascript_tool", "read_console_messages",
    "read_network_requests", "read_page", "resize_window",
)  # fmt: skip


def canonical_tools() -> list[dict[str, Any]]:
    return json.loads(CANONICAL.read_text("utf-8"))["tools"]


class _Nothing:
    async def request(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        raise AssertionError("no browser traffic in a catalog test")


def served_catalog() -> Catalog:
    every = tool_handlers(ToolDeps(_Nothing(), None))  # type: ignore[arg-type]
    handlers: dict[str, Any] = {name: every[name] for name in TRAINED_SERVED}
    return Catalog(load_specs(), handlers)


def test_the_trained_tools_are_all_served_in_canonical_order() -> None:
    trained = canonical_tools()[:TRAINED]
    served = served_catalog().descriptors()
    assert [d.name for d in served] == [tool["name"] for tool in trained]


def test_input_schemas_match_exactly_including_key_order() -> None:
    trained = {tool["name"]: tool for tool in canonical_tools()[:TRAINED]}
    for descriptor in served_catalog().descriptors():
        expected = trained[descriptor.name]["inputSchema"]
        assert json.dumps(descriptor.input_schema) == json.dumps(expected), descriptor.name


def test_annotations_and_titles_match_exactly() -> None:
    trained = {tool["name"]: tool for tool in canonical_tools()[:TRAINED]}
    for descriptor in served_catalog().descriptors():
        tool = trained[descriptor.name]
        expected = {"title": tool["title"], **tool["annotations"]}
        assert json.dumps(descriptor.annotations) == json.dumps(expected), descriptor.name
        assert descriptor.title == tool["title"]


def test_computer_actions_keep_the_trained_order() -> None:
    computer = next(d for d in served_catalog().descriptors() if d.name == "computer")
    assert computer.input_schema["properties"]["action"]["enum"] == [
        "left_click", "right_click", "type", "screenshot", "wait", "scroll", "key",
        "left_click_drag", "double_click", "triple_click", "zoom", "scroll_to", "hover",
    ]  # fmt: skip


def test_new_tools_only_append_before_explain() -> None:
    canonical = [tool["name"] for tool in canonical_tools()]
    local = [spec.name for spec in load_specs()]
    assert local[-1] == "explain" and canonical[-1] == "explain"
    assert local[:TRAINED] == canonical[:TRAINED]
    # Every canonical tool keeps its relative order; anything new sits before explain.
    assert [name for name in local if name in canonical] == canonical
