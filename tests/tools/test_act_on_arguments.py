"""act_on's argument rules, checked before anything reaches the page."""

from __future__ import annotations

import pytest

from ghostlight_trio.tools.act_on import _expect_spec, _target_spec
from ghostlight_trio.tools.shared.guard import ToolInputError


@pytest.mark.parametrize(
    "arguments",
    [
        {"action": "left_click", "target": {}},
        {"action": "left_click", "target": {"ref": "ref_1", "query": "Save"}},
        {"action": "left_click", "target": {"query": "Save", "role": "button"}},
        {"action": "left_click", "target": {"name": "Save"}, "value": "x"},
        {"action": "set_value", "target": {"name": "Email"}},
    ],
)
def test_unclear_targets_and_misplaced_values_are_refused(arguments: dict) -> None:
    with pytest.raises(ToolInputError, match="nothing was done"):
        _target_spec(arguments)


def test_a_clear_target_names_how_it_was_given() -> None:
    assert _target_spec({"action": "hover", "target": {"name": "Save", "role": "button"}})[1] == "name"
    assert _target_spec({"action": "set_value", "target": {"ref": "ref_2"}, "value": "a"})[1] == "ref"


def test_expect_takes_one_condition_and_a_default_timeout() -> None:
    assert _expect_spec({}) is None
    assert _expect_spec({"expect": {"text": "Saved"}}) == {"text": "Saved", "timeout_ms": 5000}
    for both_or_none in ({"text": "a", "selector": "b"}, {"state": "gone"}):
        with pytest.raises(ToolInputError, match="exactly one of selector or text"):
            _expect_spec({"expect": both_or_none})
