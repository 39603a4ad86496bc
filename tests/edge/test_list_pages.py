"""tools/list pages: rendered once per catalog projection, answered fresh each time."""

from __future__ import annotations

from typing import Any

from ghostlight_mcp_connector.catalog_store import CatalogStore
from ghostlight_mcp_connector.pagination import tools_page
from ghostlight_mcp_connector.rendering import tool_json

from ghostlight_trio.catalog.registry import Catalog, load_specs
from ghostlight_trio.transport.bridge import CatalogProjection


def _projection(sequence: int) -> CatalogProjection:
    specs = load_specs()
    tools = Catalog(specs, [spec.name for spec in specs]).descriptors()
    return CatalogProjection(sequence=sequence, generation=sequence, tools=tools, restricted=False)


def _store_holding(projection: CatalogProjection, store: CatalogStore[Any]) -> CatalogStore[Any]:
    store.fetch(_NoLink(), lambda: projection.sequence)
    assert store.accept(projection) is not None
    return store


class _NoLink:
    def send(self, message: object) -> list[object]:
        return []


def test_a_page_is_rendered_once_per_projection_and_its_envelope_is_fresh() -> None:
    first = _projection(1)
    store = _store_holding(first, CatalogStore())

    def page() -> dict[str, Any]:
        body = tools_page(None, first, 100, lambda a, b: store.rendered(a, b, tool_json))
        assert body is not None
        return body

    one, two = page(), page()
    assert one is not two and one["tools"] is two["tools"]  # the same rendering, a new body
    one["ttlMs"] = 0  # what an era adds to its body never reaches the next answer
    assert "ttlMs" not in two
    store.invalidate()
    later = _projection(2)
    _store_holding(later, store)
    fresh = tools_page(None, later, 100, lambda a, b: store.rendered(a, b, tool_json))
    assert fresh is not None and fresh["tools"] is not one["tools"]
    assert fresh["tools"] == one["tools"]
