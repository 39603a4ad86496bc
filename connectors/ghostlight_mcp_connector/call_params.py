"""The tool name and arguments of a tools/call, checked the same way in both revisions."""

from __future__ import annotations

import attrs

from .actions import Reply
from .jsonrpc import JsonObject, Request
from .replies import invalid_params


@attrs.frozen
class CallTarget:
    name: str
    arguments: JsonObject


def call_target(request: Request) -> CallTarget | Reply:
    """What the call asks to run, or the invalid-params answer when it is not well formed."""
    params = request.params or {}
    name = params.get("name")
    arguments = params.get("arguments", {})
    if not isinstance(name, str):
        return invalid_params(request.id, "Invalid params: tools/call needs a string name")
    if not isinstance(arguments, dict):
        return invalid_params(request.id, "Invalid params: arguments must be an object")
    return CallTarget(name, arguments)
