"""A client's tighten-only restriction travels from request ``_meta`` through the real connector
to the real service's chokepoint, in both revisions."""

from __future__ import annotations

import json
from typing import Any

import pytest

from .harness import Connector, Instance, service_kind

KEY = "io.ghostlight/restriction"
PLAN = {"domains": ["docs.example"], "approach": ["read"]}
ALLOW_ALL = {
    "schema": 3,
    "name": "t",
    "version": "1",
    "grants": [
        {"id": "all", "hosts": {"allow": ["*"]}, "allowed": ["read", "action", "write", "execute"]}
    ],
}
META_2026_07_28 = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
}

pytestmark = pytest.mark.skipif(service_kind() != "real", reason="enforcement is the service's")


def _connector_2025_11_25(instance: Instance, meta: dict[str, Any]) -> Connector:
    connector = Connector(instance)
    params = {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "restricted", "version": "0"},
        "_meta": meta,
    }
    connector.send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params})
    connector.read()
    connector.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    return connector


def _plan(
    connector: Connector, request_id: int, meta: dict[str, Any] | None = None
) -> dict[str, Any]:
    params: dict[str, Any] = {"name": "update_plan", "arguments": PLAN}
    if meta is not None:
        params["_meta"] = meta
    connector.send({"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params})
    reply, _ = connector.read_until(lambda m: m.get("id") == request_id, timeout=30)
    return reply["result"]


def _close(connector: Connector) -> None:
    connector.close_stdin()
    connector.wait_exit()


@pytest.mark.parametrize(
    ("restriction", "denied"),
    [(ALLOW_ALL, False), (json.dumps(ALLOW_ALL), False), ("{not json", True), ([1, 2], True)],
)
def test_2025_11_25_restriction_given_at_initialize_applies_to_every_call(
    shared_instance: Instance, restriction: Any, denied: bool
) -> None:
    connector = _connector_2025_11_25(shared_instance, {KEY: restriction})
    try:
        for request_id in (1, 2):
            result = _plan(connector, request_id)
            assert bool(result.get("isError")) is denied, result
            if denied:
                assert result["content"][0]["text"].startswith("Denied (D-")
    finally:
        _close(connector)


def test_2026_07_28_restriction_is_per_request_and_makes_the_list_private(
    shared_instance: Instance,
) -> None:
    connector = Connector(shared_instance)
    try:
        denied = _plan(connector, 1, {**META_2026_07_28, KEY: "{broken"})
        assert denied.get("isError") and denied["content"][0]["text"].startswith("Denied (D-")
        # The next request carries none: nothing is borrowed from the previous one.
        allowed = _plan(connector, 2, META_2026_07_28)
        assert not allowed.get("isError"), allowed

        connector.send(
            {
                "jsonrpc": "2.0",
                "id": 3,
                "method": "tools/list",
                "params": {"_meta": META_2026_07_28},
            }
        )
        public = connector.read()["result"]
        assert (public["cacheScope"], public["ttlMs"] > 0) == ("public", True)
        meta = {**META_2026_07_28, KEY: ALLOW_ALL}
        connector.send(
            {"jsonrpc": "2.0", "id": 4, "method": "tools/list", "params": {"_meta": meta}}
        )
        private = connector.read()["result"]
        assert (private["cacheScope"], private["ttlMs"]) == ("private", 0)
    finally:
        _close(connector)


READ_ONLY = {
    "schema": 3,
    "name": "read-only",
    "version": "1",
    "grants": [{"id": "read", "hosts": {"allow": ["*"]}, "allowed": ["read"]}],
}


def _list(
    connector: Connector, request_id: int, meta: dict[str, Any], cursor: str | None = None
) -> dict[str, Any]:
    params: dict[str, Any] = {"_meta": meta}
    if cursor is not None:
        params["cursor"] = cursor
    connector.send({"jsonrpc": "2.0", "id": request_id, "method": "tools/list", "params": params})
    reply, _ = connector.read_until(lambda m: m.get("id") == request_id, timeout=30)
    return reply["result"]


def _names(result: dict[str, Any]) -> list[str]:
    return [tool["name"] for tool in result["tools"]]


def test_2026_07_28_restricted_list_is_what_that_restriction_allows(
    shared_instance: Instance,
) -> None:
    connector = Connector(shared_instance)
    try:
        shared = _list(connector, 1, META_2026_07_28)
        read_only = _list(connector, 2, {**META_2026_07_28, KEY: READ_ONLY})
        assert (read_only["cacheScope"], read_only["ttlMs"]) == ("private", 0)
        names = _names(read_only)
        assert names and set(names) < set(_names(shared)), names
        assert names == [n for n in _names(shared) if n in names], "canonical order kept"
        # Reading lists what has a reading variant; what only writes or runs code is left out.
        assert "tabs_context_mcp" in names and "computer" in names
        assert {"form_input", "javascript_tool", "file_upload"}.isdisjoint(names)
        # Allowing everything lists everything, still privately; the JSON text form is the same.
        everything = _list(connector, 3, {**META_2026_07_28, KEY: json.dumps(ALLOW_ALL)})
        assert _names(everything) == _names(shared)
        assert (everything["cacheScope"], everything["ttlMs"]) == ("private", 0)
        # An invalid restriction allows nothing a policy could close: only the always-open tools.
        broken = _list(connector, 4, {**META_2026_07_28, KEY: "{broken"})
        assert set(_names(broken)) < set(names), _names(broken)
        # Without one, the shared list as before: nothing is borrowed from earlier requests.
        again = _list(connector, 5, META_2026_07_28)
        assert _names(again) == _names(shared) and again["cacheScope"] == "public"
    finally:
        _close(connector)


def test_2026_07_28_restricted_list_pages_with_its_own_cursors(shared_instance: Instance) -> None:
    meta = {**META_2026_07_28, KEY: READ_ONLY}
    whole = Connector(shared_instance)
    try:
        expected = _names(_list(whole, 1, meta))
    finally:
        _close(whole)
    connector = Connector(shared_instance, GHOSTLIGHT_MCP_PAGE_SIZE="3")
    try:
        names: list[str] = []
        cursor = None
        for request_id in range(1, 50):
            page = _list(connector, request_id, meta, cursor)
            assert (page["cacheScope"], page["ttlMs"]) == ("private", 0)
            names += _names(page)
            cursor = page.get("nextCursor")
            if cursor is None:
                break
        assert names == expected and len(names) > 3
    finally:
        _close(connector)
