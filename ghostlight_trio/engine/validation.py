"""A conservative fast path in front of the catalog's JSON Schema validation.

``compile_fast_check`` turns the common subset of an input schema (types, properties,
required, additionalProperties, enum of strings, items and simple bounds) into a plain predicate.
The predicate only ever says "certainly valid": anything it does not fully understand, or any
doubt at all, answers False and the caller asks the full validator, which also words the
corrective message. So the verdict and the text are exactly the full validator's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Check = Callable[[Any], bool]

_ANNOTATIONS = frozenset({"title", "description", "default", "examples", "$comment"})
_SUPPORTED = _ANNOTATIONS | {
    "type",
    "properties",
    "required",
    "additionalProperties",
    "enum",
    "items",
    "minItems",
    "maxItems",
    "minimum",
    "maximum",
    "minLength",
    "maxLength",
}


def _is_integer(value: Any) -> bool:
    return type(value) is int


def _is_number(value: Any) -> bool:
    return type(value) is int or type(value) is float


# Exact types only: a subclass, a bool where a number is wanted or a whole float where an
# integer is wanted is left to the full validator.
_TYPE_TESTS: dict[str, Check] = {
    "object": lambda value: type(value) is dict,
    "array": lambda value: type(value) is list,
    "string": lambda value: type(value) is str,
    "boolean": lambda value: type(value) is bool,
    "null": lambda value: value is None,
    "integer": _is_integer,
    "number": _is_number,
}


def compile_fast_check(schema: Any) -> Check | None:
    """A predicate that is True only for instances the schema certainly accepts, or None when
    the schema uses anything outside the supported subset."""
    if schema is True:
        return lambda value: True
    if not isinstance(schema, dict) or not set(schema) <= _SUPPORTED:
        return None
    checks: list[Check] = []

    kind = schema.get("type")
    if kind is not None:
        kinds = [kind] if isinstance(kind, str) else kind
        if not isinstance(kinds, list) or not all(k in _TYPE_TESTS for k in kinds):
            return None
        tests = [_TYPE_TESTS[k] for k in kinds]
        checks.append(tests[0] if len(tests) == 1 else lambda v: any(t(v) for t in tests))

    if "enum" in schema:
        allowed = schema["enum"]
        if not isinstance(allowed, list) or not all(type(item) is str for item in allowed):
            return None
        allowed_set = frozenset(allowed)
        checks.append(lambda v: type(v) is str and v in allowed_set)

    for container, exact_type, compile_part in _CONTAINERS:
        part = compile_part(schema)
        if part is None:
            return None
        if part is not _PASS:
            # Where the type test already made it this container, the part checks it directly.
            checks.append(part if kind == container else _only_for(exact_type, part))

    bounds = _compile_bounds(schema)
    if bounds is None:
        return None
    checks.extend(bounds)

    if not checks:
        return _PASS
    if len(checks) == 1:
        return checks[0]
    if len(checks) == 2:
        first, second = checks
        return lambda v: first(v) and second(v)
    return lambda v: all(check(v) for check in checks)


def _PASS(value: Any) -> bool:
    return True


def _only_for(exact_type: type, check: Check) -> Check:
    """``check`` for values of exactly ``exact_type``; any other value passes it."""
    return lambda v: type(v) is not exact_type or check(v)


def _compile_object(schema: dict[str, Any]) -> Check | None:
    if not {"properties", "required", "additionalProperties"} & schema.keys():
        return _PASS
    properties = schema.get("properties", {})
    required = schema.get("required", [])
    extra = schema.get("additionalProperties", True)
    if not isinstance(properties, dict) or not isinstance(required, list):
        return None
    if not all(isinstance(name, str) for name in required):
        return None
    compiled: dict[str, Check] = {}
    for name, sub in properties.items():
        check = compile_fast_check(sub)
        if check is None:
            return None
        compiled[name] = check
    if extra is True:
        extra_check: Check | None = _PASS
    elif extra is False:
        extra_check = None
    else:
        extra_check = compile_fast_check(extra)
        if extra_check is None:
            return None
    required_names = tuple(required)
    forbid_extra = extra is False

    def check_object(value: dict[Any, Any]) -> bool:
        for name in required_names:
            if name not in value:
                return False
        for name, item in value.items():
            check = compiled.get(name)
            if check is None:
                if forbid_extra or not extra_check(item):  # type: ignore[misc]
                    return False
            elif not check(item):
                return False
        return True

    return check_object


def _compile_array(schema: dict[str, Any]) -> Check | None:
    if not {"items", "minItems", "maxItems"} & schema.keys():
        return _PASS
    item_check = compile_fast_check(schema.get("items", True))
    if item_check is None:
        return None
    low = schema.get("minItems")
    high = schema.get("maxItems")
    if not all(bound is None or type(bound) is int for bound in (low, high)):
        return None

    def check_array(value: list[Any]) -> bool:
        if low is not None and len(value) < low:
            return False
        if high is not None and len(value) > high:
            return False
        for item in value:
            if not item_check(item):
                return False
        return True

    return check_array


def _compile_bounds(schema: dict[str, Any]) -> list[Check] | None:
    checks: list[Check] = []
    low, high = schema.get("minimum"), schema.get("maximum")
    if not all(bound is None or _is_number(bound) for bound in (low, high)):
        return None
    if low is not None or high is not None:

        def check_number(value: Any) -> bool:
            if not _is_number(value):
                return True
            if low is not None and not value >= low:
                return False
            return high is None or value <= high

        checks.append(check_number)
    shortest, longest = schema.get("minLength"), schema.get("maxLength")
    if not all(bound is None or type(bound) is int for bound in (shortest, longest)):
        return None
    if shortest is not None or longest is not None:

        def check_length(value: Any) -> bool:
            if type(value) is not str:
                return True
            if shortest is not None and len(value) < shortest:
                return False
            return longest is None or len(value) <= longest

        checks.append(check_length)
    return checks


_CONTAINERS: tuple[tuple[str, type, Callable[[dict[str, Any]], Check | None]], ...] = (
    ("object", dict, _compile_object),
    ("array", list, _compile_array),
)
"""The container types whose contents a schema may constrain, with their part's compiler."""
