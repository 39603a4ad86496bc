"""Argument validation always yields a corrective message, whatever types the caller sends."""

from __future__ import annotations

import pytest

from ghostlight_trio.catalog.registry import Catalog, load_specs


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return Catalog(load_specs(), ["update_plan", "navigate", "computer"])


@pytest.mark.parametrize(
    "arguments",
    [
        {"domains": [b"bytes are not text"], "approach": []},
        {"domains": b"x", "approach": [float("nan")]},
        {"domains": [{1, 2}], "approach": [object()]},
    ],
)
def test_values_json_cannot_render_still_get_a_message(catalog: Catalog, arguments) -> None:
    message = catalog.validate("update_plan", arguments)
    assert message is not None and message.startswith("Invalid arguments for update_plan")


def test_enum_message_lists_the_allowed_values(catalog: Catalog) -> None:
    message = catalog.validate("computer", {"action": "jump", "tabId": 1})
    assert message is not None and '"left_click"' in message
