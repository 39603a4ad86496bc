"""Each catalog entry declares what governance reads of its tool (``governance``); governance
names no tool, and none of those facts reaches a client."""

from __future__ import annotations

import ast
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs
import cbor2
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ghostlight_trio.catalog.facts import governance_facts
from ghostlight_trio.catalog.registry import ToolSpec, load_specs
from ghostlight_trio.governance.directory import requirement
from ghostlight_trio.transport.bridge import CatalogProjection, ToolDescriptor
from ghostlight_trio.transport.bridge_codec import encode_message

ROOT = Path(__file__).parents[2]
CATALOG = ROOT / "ghostlight_trio" / "catalog" / "tool-catalog.json"
SPECS = {spec.name: spec for spec in load_specs()}
FACT_KEYS = ["governance", "pageArgument", "landing", "tabList", "alwaysOpen", "refinements",
             "whenPresent", "whenGiven", "page_argument", "tab_list", "always_open"]  # fmt: skip


def test_every_entry_declares_its_governance_facts() -> None:
    tools = json.loads(CATALOG.read_text("utf-8"))["tools"]
    assert all(isinstance(tool.get("governance"), dict) for tool in tools)


def test_a_misspelt_fact_is_refused_at_load() -> None:
    with pytest.raises(ValueError, match="pageArgumnet"):
        governance_facts({"pageArgumnet": {"name": "url"}})


def _descriptor_as_before(spec: ToolSpec) -> ToolDescriptor:
    """How the descriptor was built field by field before the facts were declared."""
    output = spec.output_schema if spec.workspace_use == "creates" else None
    shown = (spec.name, spec.title, spec.description, spec.input_schema, spec.annotations)
    return ToolDescriptor(*shown, workspace_use=spec.workspace_use, output_schema=output)


def test_no_fact_reaches_what_clients_are_shown() -> None:
    descriptors = [spec.descriptor() for spec in SPECS.values()]
    assert descriptors == [_descriptor_as_before(spec) for spec in SPECS.values()]
    assert "governance" not in {field.name for field in attrs.fields(ToolDescriptor)}
    wire = cbor2.loads(encode_message(CatalogProjection(sequence=1, generation=1, tools=descriptors)))
    shown = json.dumps(wire)
    for spec in SPECS.values():  # the facts' own keys appear in no schema either
        assert "alwaysOpen" not in json.dumps(spec.input_schema)
    for key in FACT_KEYS:
        assert f'"{key}"' not in shown, key


def test_governance_names_no_tool() -> None:
    """A string in governance's code that is a tool's name would be a decision by name. The
    one there is the browser's own ``navigate`` request, which parks a tab."""
    named = []
    for path in sorted((ROOT / "ghostlight_trio" / "governance").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.Constant) and node.value in SPECS:
                named.append((path.name, node.value))
    assert named == [("assembly.py", "navigate")]


# --- the declared refinements decide as the hard-wired ones did -------------------------------

_ACT_ON_READS = {"left_click", "right_click", "double_click", "set_value"}


def _needs_before(name: str, action: str | None, arguments: Mapping[str, Any], row: list[str]) -> frozenset[str]:
    """The refinements as governance wrote them, by tool name, before the catalog declared them."""
    target = arguments.get("target")
    semantic = (isinstance(target, Mapping) and any(k in target for k in ("query", "name"))) or (
        "expect" in arguments
    )
    placed = arguments.get("ref") is not None or arguments.get("coordinate") is not None
    if name == "act_on" and semantic and action in _ACT_ON_READS:
        return frozenset(row) | {"read"}
    if name == "gif_creator" and action == "export" and placed:
        return (frozenset(row) - {"read"}) | {"write"}
    return frozenset(row)


_values = st.one_of(st.none(), st.text(max_size=3), st.integers(), st.lists(st.integers(), max_size=2))
_target = st.dictionaries(st.sampled_from(["ref", "query", "name", "role"]), _values, max_size=3)
_arguments = st.fixed_dictionaries(
    {"action": st.sampled_from(["left_click", "right_click", "double_click", "hover", "scroll_to",
                                "set_value", "export", "start_recording", "status"])},  # fmt: skip
    optional={
        "target": st.one_of(_target, _values),
        "expect": _values,
        "ref": _values,
        "coordinate": _values,
    },
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tool=st.sampled_from(["act_on", "gif_creator", "computer"]), arguments=_arguments)
def test_refinements_need_what_they_needed_when_named(tool: str, arguments: dict[str, Any]) -> None:
    spec = SPECS[tool]
    action = arguments["action"]
    row = spec.capabilities.get(action)
    needed = requirement(spec, arguments)
    if row is None:
        assert needed.needs is None
        return
    assert needed.needs == _needs_before(tool, action, arguments, row)
