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


def test_arguments_holding_more_values_than_any_tool_takes_are_refused_before_the_schema(
    catalog: Catalog,
) -> None:
    """Checking a million values against the schema would hold the service for seconds."""
    huge = {"domains": ["example.com"] * 1_000_000 + [5], "approach": []}
    message = catalog.validate("update_plan", huge)
    assert message == (
        "Invalid arguments for update_plan: they hold more than 10000 values (counting every"
        " string, number, list and object); no tool takes that many."
    )
    nested = {"domains": [[["x"] * 200] * 60], "approach": []}  # 12,000 values, deep down
    assert "more than 10000 values" in (catalog.validate("update_plan", nested) or "")


def test_many_problems_are_summed_up_not_all_collected(catalog: Catalog) -> None:
    message = catalog.validate("update_plan", {"domains": list(range(5000)), "approach": []})
    assert message is not None and message.count("must be of type string") == 5
    assert "'domains[0]'" in message and "'domains[4]'" in message  # in order: 4 before 10
    assert message.endswith("... and more problems. Accepted parameters: domains, approach.")


def test_size_limits_say_the_size_and_the_limit_never_the_value_back_whole() -> None:
    catalog = Catalog(load_specs(), ["script", "navigate"])
    steps = [{"tool": "find", "args": {"query": "x" * 40}}] * 21
    message = catalog.validate("script", {"tabId": 1, "steps": steps})
    assert message is not None and "'steps' has 21 items; at most 20" in message
    assert len(message) < 300
    long_url = catalog.validate("navigate", {"tabId": 1, "url": ["y" * 5000]})
    assert long_url is not None and len(long_url) < 400


def test_a_parameter_an_action_does_not_take_is_named_with_the_action() -> None:
    catalog = Catalog(load_specs(), ["dialog"])
    message = catalog.validate("dialog", {"tabId": 1, "action": "accept", "text": "yes"})
    assert message == (
        "Invalid arguments for dialog: parameter 'text' is not accepted with action \"accept\"."
        " Accepted parameters: tabId, action, text."
    )
    assert catalog.validate("dialog", {"tabId": 1, "action": "respond", "text": "yes"}) is None
