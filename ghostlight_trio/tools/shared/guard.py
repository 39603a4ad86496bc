"""The guard around a tab tool's body: its ``tabId``, and the arguments, browser failures and
JavaScript dialogs that end it, each turned into a truthful result."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeGuard

from ...browser.errors import BrowserFailure
from ...browser.failures import failure_result
from ...engine.contracts import ToolCall, ToolHandler, ToolResult
from .dialogs import PageDialog, stopped_result


class ToolInputError(Exception):
    """Arguments the agent can correct; reported as a tool error before any browser traffic."""


def tab_of(call: ToolCall) -> int:
    """The call's ``tabId`` (validated by the catalog schema as a number)."""
    tab = call.arguments.get("tabId")
    if isinstance(tab, bool) or not isinstance(tab, int | float) or tab <= 0 or tab != int(tab):
        raise ToolInputError("tabId must be a tab id from tabs_context_mcp.")
    return int(tab)


def is_tab_id(value: object) -> TypeGuard[int]:
    """A tab id as the browser gives them: a positive whole number."""
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


Body = Callable[[ToolCall, int], Awaitable[ToolResult]]
DialogWording = Callable[[ToolCall, int, PageDialog], ToolResult]


def _stopped(call: ToolCall, tab: int, stop: PageDialog) -> ToolResult:
    return stopped_result(call, tab, call.context.operation, stop)


def guarded(body: Body, on_dialog: DialogWording = _stopped) -> ToolHandler:
    """A tool handler running ``body(call, tab)``: argument problems, browser failures and a
    JavaScript dialog that stops the request become truthful results (the dialog worded by
    ``on_dialog``; by default as a request that was kept from running or cut short)."""

    async def handler(call: ToolCall) -> ToolResult:
        try:
            tab = tab_of(call)
            return await body(call, tab)
        except ToolInputError as problem:
            return ToolResult.error(str(problem))
        except BrowserFailure as failure:
            return failure_result(failure, reaches_page=True)
        except PageDialog as stop:
            return on_dialog(call, tab, stop)

    return handler
