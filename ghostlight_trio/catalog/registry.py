"""Loads the canonical tool catalog once and answers questions about it.

The catalog file carries the exact interface facts (order, schemas with significant key order,
annotations, scheduling class, capabilities); ``descriptions.json`` carries our own short
model-facing descriptions. Only tools with a handler in this build are advertised.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterable, Mapping
from importlib import resources
from typing import Any, Literal

import attrs
import jsonschema

from ..transport.bridge import ToolDescriptor
from ..untrusted.excerpt import excerpt
from ..untrusted.jsonshape import exceeds
from .facts import GovernanceFacts, governance_facts

WorkspaceUse = Literal["creates", "uses", "independent"]

SERVICE_LOCAL_CLASS = "service_local"
"""The scheduling class of the tools the service answers itself (a plan, an explanation):
they reach no page and need no browser."""
PRESENTATION_CLASS = "presentation"
"""The scheduling class of what only shows something to the person watching (narrate)."""


@attrs.frozen
class ToolSpec:
    """One catalog tool: what clients are shown of it (``descriptor``) and what the service
    alone reads (scheduling, capabilities, governance facts)."""

    name: str
    title: str
    description: str
    input_schema: dict[str, Any]
    """As clients are shown it: no combinator at its root (``client_safe_schema``)."""
    annotations: dict[str, Any]
    workspace_use: WorkspaceUse
    scheduling_class: str
    action_key: str | None
    capabilities: dict[str, list[str]]
    output_schema: dict[str, Any] | None
    """Declared for every tool; advertised only by context-creating ones (``descriptor``)."""
    governance: GovernanceFacts = GovernanceFacts()

    def descriptor(self) -> ToolDescriptor:
        """The protocol-neutral projection the edges render: the descriptor's own fields and
        nothing else of the spec.

        Output schemas are advertised only for context-creating tools (their workspace handle
        must be declared); the rest would cost tokens without helping clients.
        """
        shown = {field.name: getattr(self, field.name) for field in attrs.fields(ToolDescriptor)}
        if self.workspace_use != "creates":
            shown["output_schema"] = None
        return ToolDescriptor(**shown)


def _load_json(name: str) -> Any:
    return json.loads(resources.files(__package__).joinpath(name).read_text("utf-8"))


ROOT_COMBINATORS = ("allOf", "anyOf", "oneOf")
"""Keywords model providers refuse at the root of a tool's input schema (the Anthropic API
answers 400 for the whole request, others drop the tool), though JSON Schema allows them."""


def client_safe_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """The same rules with no combinator at the root: a root ``allOf`` of one conditional
    (``if``/``then``/``else``) becomes that conditional at the root, in the place the
    ``allOf`` held. Anything else is returned unchanged (and a catalog test keeps it so)."""
    conditions = schema.get("allOf")
    if (
        not isinstance(conditions, list)
        or len(conditions) != 1
        or not isinstance(conditions[0], dict)
        or not set(conditions[0]) <= {"if", "then", "else"}
        or set(conditions[0]) & set(schema)
    ):
        return schema
    hoisted: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "allOf":
            hoisted.update(conditions[0])
        else:
            hoisted[key] = value
    return hoisted


SCHEDULING_OVERRIDES = {"resize_window": "tab_surface"}
"""Where this build's tool acts on less than the catalog's class says. ``resize_window`` sets
the tab's own viewport (a window holds other workspaces' tabs), so it is scheduled, and an
unknown outcome quarantined, on that tab alone: never the whole browser, for every client."""


def load_specs() -> list[ToolSpec]:
    """All catalog tools in canonical order."""
    raw = _load_json("tool-catalog.json")["tools"]
    descriptions: dict[str, str] = _load_json("descriptions.json")
    specs = []
    for tool in raw:
        annotations = {"title": tool["title"], **tool["annotations"]}
        specs.append(
            ToolSpec(
                name=tool["name"],
                title=tool["title"],
                description=descriptions[tool["name"]],
                input_schema=client_safe_schema(tool["inputSchema"]),
                annotations=annotations,
                workspace_use=tool["workspaceUse"],
                scheduling_class=SCHEDULING_OVERRIDES.get(tool["name"], tool["schedulingClass"]),
                action_key=tool["actionKey"],
                capabilities=tool["capabilities"],
                output_schema=tool["outputSchema"],
                governance=governance_facts(tool["governance"]),
            )
        )
    return specs


class Catalog:
    """The service's single catalog: specs, availability, generation, validation."""

    def __init__(
        self,
        specs: Iterable[ToolSpec],
        available: Iterable[str],
        *,
        advertised: Iterable[str] | None = None,
        restricted: bool = False,
    ) -> None:
        """``available``: the tools this build can run; ``advertised``: those listed to clients
        at first (all available ones by default)."""
        self._specs = {spec.name: spec for spec in specs}
        self._implemented = frozenset(available)
        self._available = set(self._implemented if advertised is None else advertised)
        unknown = self._implemented - self._specs.keys()
        if unknown:
            raise ValueError(f"handlers for tools not in the catalog: {sorted(unknown)}")
        self._validators = {
            name: jsonschema.Draft202012Validator(spec.input_schema)
            for name, spec in self._specs.items()
        }
        self.generation = 1
        self.restricted = restricted
        """True while the advertised list depends on a policy (edges then mark it uncacheable)."""

    def spec(self, name: str) -> ToolSpec | None:
        """The spec of an advertised tool, None for unknown or unavailable ones."""
        return self._specs.get(name) if name in self._available else None

    def callable_spec(self, name: str) -> ToolSpec | None:
        """The spec of a tool this build can run, advertised or not. A tool the policy keeps
        off the list is still a call to judge (denied, audited, counted), not an unknown name:
        an agent may know it from training."""
        return self._specs.get(name) if name in self._implemented else None

    def advertised(self) -> list[ToolSpec]:
        return [spec for name, spec in self._specs.items() if name in self._available]

    def descriptors(self) -> list[ToolDescriptor]:
        return [spec.descriptor() for spec in self.advertised()]

    def set_available(self, names: Iterable[str]) -> bool:
        """Change which tools are advertised; returns True (and bumps the generation) if changed."""
        new = set(names)
        if new == self._available:
            return False
        self._available = new
        self.generation += 1
        return True

    def all_specs(self) -> list[ToolSpec]:
        """Every catalog tool in canonical order, advertised or not."""
        return list(self._specs.values())

    def republish(self) -> None:
        """Move the generation without changing the list (decisions behind it changed)."""
        self.generation += 1

    def validate(self, name: str, arguments: Mapping[str, Any]) -> str | None:
        """None when the arguments fit the tool's schema, else one corrective message."""
        if exceeds(arguments, max_values=MAX_ARGUMENT_VALUES):
            return (
                f"Invalid arguments for {name}: they hold more than {MAX_ARGUMENT_VALUES} values"
                " (counting every string, number, list and object); no tool takes that many."
            )
        validator = self._validators[name]
        found = list(itertools.islice(validator.iter_errors(dict(arguments)), MAX_ERRORS + 1))
        errors = sorted(found[:MAX_ERRORS], key=_error_order)
        if not errors:
            return None
        lines = [_describe(error) for error in errors[:5]]
        if len(found) > MAX_ERRORS:
            lines.append("... and more problems")
        elif len(errors) > 5:
            lines.append(f"... and {len(errors) - 5} more problems")
        props = ", ".join(self._specs[name].input_schema.get("properties", {})) or "none"
        return (
            f"Invalid arguments for {name}: "
            + "; ".join(lines)
            + f". Accepted parameters: {props}."
        )


MAX_ARGUMENT_VALUES = 10_000
"""More values than any tool takes. Arguments past it are refused before the schema is checked:
checking a million of them would hold the service, every client's calls with it, for seconds."""
MAX_ERRORS = 50
SHOWN_VALUE = 80
"""Characters of an offending value a message repeats."""
"""Schema problems collected for one message (it shows the first five, nearest the top)."""


def _error_order(error: jsonschema.ValidationError) -> tuple[int, list[tuple[int, int, str]]]:
    """Nearest the top first, then in document order (list indexes as numbers: 2 before 10)."""
    path = error.absolute_path
    return (
        len(path),
        [(0, part, "") if isinstance(part, int) else (1, 0, str(part)) for part in path],
    )


def _describe(error: jsonschema.ValidationError) -> str:
    where = "".join(
        f"[{part}]" if isinstance(part, int) else f".{part}" for part in error.absolute_path
    ).lstrip(".")
    validator = error.validator
    if validator == "required":
        missing = error.message.split("'")[1] if "'" in error.message else error.message
        return f"missing required parameter '{missing}'" + (f" in {where}" if where else "")
    if validator == "additionalProperties":
        known = error.schema.get("properties", {}) if isinstance(error.schema, dict) else {}
        extras = ", ".join(repr(key) for key in error.instance if key not in known)
        return f"unexpected parameter {extras}" + (f" in {where}" if where else "")
    if validator == "type":
        expected = error.validator_value
        return f"'{where or 'arguments'}' must be of type {expected}, got {_shown(error.instance)}"
    if validator == "enum":
        allowed = ", ".join(_shown(v) for v in error.validator_value)
        return f"'{where}' must be one of {allowed}"
    forbidden = _forbidden_parameters(error)
    if forbidden:
        action = error.instance.get("action") if isinstance(error.instance, dict) else None
        when = f" with action {_shown(action)}" if isinstance(action, str) else " here"
        return f"parameter {forbidden} is not accepted{when}" + (f" in {where}" if where else "")
    if validator in _SIZES and isinstance(error.instance, list | str | dict):
        noun, bound = _SIZES[str(validator)]
        return (
            f"'{where or 'arguments'}' has {len(error.instance)} {noun}; {bound}"
            f" {error.validator_value}"
        )
    message = error.message
    given = repr(error.instance)
    if len(given) > SHOWN_VALUE and message.startswith(given):
        # "[... 20 steps ...] is too long": the value back whole would be the caller's own payload.
        message = excerpt(given, SHOWN_VALUE) + message[len(given) :]
    return f"'{where or 'arguments'}': {message}"


def _forbidden_parameters(error: jsonschema.ValidationError) -> str:
    """The parameters a ``not: {required: [...]}`` rule keeps out (a prompt's text given to
    an action that takes none), or ""."""
    rule = error.validator_value
    if error.validator != "not" or not isinstance(rule, dict) or list(rule) != ["required"]:
        return ""
    return ", ".join(repr(str(name)) for name in rule["required"])


_SIZES = {
    "maxItems": ("items", "at most"),
    "minItems": ("items", "at least"),
    "maxLength": ("characters", "at most"),
    "minLength": ("characters", "at least"),
    "maxProperties": ("members", "at most"),
    "minProperties": ("members", "at least"),
}


def _shown(value: Any) -> str:
    """A short rendering of an argument value; never fails, whatever the caller sent."""
    try:
        text = json.dumps(value)
    except (TypeError, ValueError):
        text = f"a {type(value).__name__} value"
    return text[:60]
