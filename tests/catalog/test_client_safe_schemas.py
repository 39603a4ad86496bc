"""Every published input schema is one model providers take: no allOf/anyOf/oneOf at its root
(the Anthropic API refuses the whole request for one such tool; others drop the tool). The rules
such a root held are kept, in a form providers accept."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from ghostlight_trio.catalog.registry import ROOT_COMBINATORS, client_safe_schema, load_specs

CATALOG = Path(__file__).parents[2] / "ghostlight_trio" / "catalog" / "tool-catalog.json"


def test_no_published_input_schema_has_a_combinator_at_its_root() -> None:
    for spec in load_specs():
        assert not set(spec.input_schema) & set(ROOT_COMBINATORS), spec.name
        assert spec.input_schema["type"] == "object", spec.name


@pytest.mark.parametrize(
    ("arguments", "valid"),
    [
        ({"tabId": 1, "action": "respond", "text": "yes"}, True),
        ({"tabId": 1, "action": "respond"}, False),
        ({"tabId": 1, "action": "accept"}, True),
        ({"tabId": 1, "action": "accept", "text": "yes"}, False),
        ({"tabId": 1, "action": "status", "extra": 1}, False),
    ],
)
def test_the_dialog_rules_are_the_catalog_s_own(arguments: dict, valid: bool) -> None:
    declared = next(t for t in json.loads(CATALOG.read_text("utf-8"))["tools"] if t["name"] == "dialog")
    published = next(s for s in load_specs() if s.name == "dialog").input_schema
    assert "allOf" in declared["inputSchema"] and "if" in published
    for schema in (declared["inputSchema"], published):
        assert jsonschema.Draft202012Validator(schema).is_valid(arguments) is valid
    assert list(published) == ["type", "properties", "required", "if", "then", "else", "additionalProperties"]


def test_only_a_lone_conditional_is_moved() -> None:
    alternatives = {"type": "object", "anyOf": [{"required": ["a"]}, {"required": ["b"]}]}
    assert client_safe_schema(alternatives) is alternatives
    two = {"type": "object", "allOf": [{"if": {}, "then": {}}, {"if": {}, "then": {}}]}
    assert client_safe_schema(two) is two
    clash = {"type": "object", "if": {}, "allOf": [{"if": {}, "then": {}}]}
    assert client_safe_schema(clash) is clash


def test_resize_window_is_scheduled_on_its_own_tab_not_the_whole_browser() -> None:
    """It sets the tab's viewport: an unknown outcome must quarantine that tab, never every
    client's browser."""
    from ghostlight_trio.engine.resources import resource_for
    from ghostlight_trio.scheduler import TabSurface
    from ghostlight_trio.workspace import compose_tab_id

    spec = next(s for s in load_specs() if s.name == "resize_window")
    key = resource_for(spec, {"tabId": compose_tab_id(1, 7), "width": 800, "height": 600}, None)
    assert key == TabSurface(1, 7)
