"""What a 2025-11-25 client receives in tools/list is the catalog's trained surface, exactly:
names, order, input schemas with their key order, and annotations. 2026-07-28 differs only by
the additive optional ``workspaceId``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .harness import Connector, Instance, service_kind

CATALOG = Path(__file__).parents[2] / "ghostlight_trio" / "catalog" / "tool-catalog.json"
TRAINED = 13
ANNOTATION_KEYS = ["title", "readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"]
META_2026_07_28 = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
}

pytestmark = pytest.mark.skipif(
    service_kind() != "real", reason="the projection is the real service's catalog"
)


def _catalog() -> list[dict[str, Any]]:
    return json.loads(CATALOG.read_text("utf-8"))["tools"]


def _list_tools(instance: Instance, *, revision_2026_07_28: bool) -> list[dict[str, Any]]:
    connector = Connector(instance)
    try:
        if revision_2026_07_28:
            params: dict[str, Any] = {"_meta": META_2026_07_28}
        else:
            connector.send(
                {
                    "jsonrpc": "2.0",
                    "id": 0,
                    "method": "initialize",
                    "params": {
                        "protocolVersion": "2025-11-25",
                        "capabilities": {},
                        "clientInfo": {"name": "projection", "version": "0"},
                    },
                }
            )
            connector.read()
            connector.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
            params = {}
        tools: list[dict[str, Any]] = []
        cursor = None
        for page in range(20):
            page_params = dict(params, **({"cursor": cursor} if cursor else {}))
            connector.send({"jsonrpc": "2.0", "id": 10 + page, "method": "tools/list", "params": page_params})
            # Keep the raw text: key order is part of the contract.
            result = json.loads(connector.read_line())["result"]
            tools.extend(result["tools"])
            cursor = result.get("nextCursor")
            if not cursor:
                return tools
        raise AssertionError("pagination never ended")
    finally:
        connector.close_stdin()
        connector.wait_exit()


def test_2025_11_25_projection_is_the_trained_surface(shared_instance: Instance) -> None:
    served = _list_tools(shared_instance, revision_2026_07_28=False)
    trained = _catalog()[:TRAINED]
    assert [tool["name"] for tool in served[:TRAINED]] == [tool["name"] for tool in trained]
    for got, want in zip(served, trained, strict=False):
        assert json.dumps(got["inputSchema"]) == json.dumps(want["inputSchema"]), got["name"]
        assert list(got["annotations"]) == ANNOTATION_KEYS
        assert got["annotations"] == {"title": want["title"], **want["annotations"]}
        assert got["description"] and len(got["description"]) < 300
    # Anything beyond the trained tools keeps catalog order (growth is append-before-explain).
    names = [tool["name"] for tool in _catalog()]
    assert [names.index(tool["name"]) for tool in served] == sorted(
        names.index(tool["name"]) for tool in served
    )
    assert len(json.dumps({"tools": served}, separators=(",", ":"))) <= 20_000


def test_2026_07_28_projection_only_adds_an_optional_workspace_handle(shared_instance: Instance) -> None:
    listed_2025_11_25 = {tool["name"]: tool for tool in _list_tools(shared_instance, revision_2026_07_28=False)}
    for tool in _list_tools(shared_instance, revision_2026_07_28=True):
        before = listed_2025_11_25[tool["name"]]["inputSchema"]
        after = tool["inputSchema"]
        spec = next(entry for entry in _catalog() if entry["name"] == tool["name"])
        if spec["workspaceUse"] in ("creates", "uses"):
            assert list(after["properties"]) == [*before["properties"], "workspaceId"]
            assert after["properties"]["workspaceId"]["type"] == "string"
            assert "workspaceId" not in after.get("required", [])
            trimmed = dict(after, properties={
                key: value for key, value in after["properties"].items() if key != "workspaceId"
            })
            assert json.dumps(trimmed) == json.dumps(before)
        else:
            assert json.dumps(after) == json.dumps(before)
        if spec["workspaceUse"] == "creates":
            assert "workspaceId" in tool["outputSchema"]["properties"]
            assert "workspaceId" in tool["outputSchema"]["required"]
