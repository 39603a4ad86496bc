"""tools/list pages: rendered once per catalog projection, answered fresh each time."""

from __future__ import annotations

from ghostlight_mcp_connector.pagination import tools_page
from ghostlight_mcp_connector.rendering import tool_json

from ghostlight_trio.catalog.registry import Catalog, load_specs
from ghostlight_trio.transport.bridge import CatalogProjection


def _projection(generation: int) -> CatalogProjection:
    specs = load_specs()
    tools = Catalog(specs, [spec.name for spec in specs]).descriptors()
    return CatalogProjection(sequence=1, generation=generation, tools=tools, restricted=False)


def test_a_page_is_rendered_once_per_projection_and_its_envelope_is_fresh() -> None:
    first = _projection(1)
    one, two = tools_page(None, first, 100, tool_json), tools_page(None, first, 100, tool_json)
    assert one is not None and two is not None
    assert one is not two and one["tools"] is two["tools"]  # the same rendering, a new body
    one["ttlMs"] = 0  # what an era adds to its body never reaches the next answer
    assert "ttlMs" not in two
    later = tools_page(None, _projection(2), 100, tool_json)
    assert later is not None and later["tools"] is not one["tools"]
    assert later["tools"] == one["tools"]
