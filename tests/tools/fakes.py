"""Doubles shared by the tool tests: the engine's effect hooks, a tool call and a scripted
browser."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import trio

from ghostlight_trio.browser.errors import BrowserError
from ghostlight_trio.engine.contracts import ToolCall, ToolHandler, WorkContext, WorkspaceId
from ghostlight_trio.tools.registry import ToolDeps, tool_handlers


class Effects:
    """Runs each effect at once and counts atomic effects and checkpoints."""

    def __init__(self) -> None:
        self.atomic_calls = 0
        self.checkpoints = 0
        self.done = ""
        self.cancelled = trio.Event()

    async def atomic(self, effect: Any) -> Any:
        self.atomic_calls += 1
        return await effect()

    async def checkpoint(self) -> None:
        self.checkpoints += 1
        await trio.lowlevel.checkpoint()

    def caller_cancelled(self) -> trio.Event:
        """Set ``cancelled`` to cancel the call the way its caller would."""
        return self.cancelled

    def progress(self, *args: Any, **kwargs: Any) -> None:
        pass

    def done_so_far(self, what: str) -> None:
        self.done = what

    def closed_at(self, url: str) -> str | None:
        """Set ``closed`` to the URLs whose documents' words the call may not read."""
        return url if url in getattr(self, "closed", ()) else None

    def denied_at(self, url: str) -> str | None:
        """Set ``denied`` to the URLs whose documents the call may not reach."""
        return f"denied: {url}" if url in getattr(self, "denied", ()) else None


def tool_call(tool: str, **arguments: Any) -> ToolCall:
    """A call of ``tool`` in workspace ``ws`` on tab 7 (unless ``tabId`` is given)."""
    context = WorkContext("w1", tool, WorkspaceId("ws"))
    return ToolCall(context=context, arguments={"tabId": 7, **arguments}, effects=Effects())


class ScriptedBrowser:
    """Answers each request with ``answer(op, args)``; keeps what was asked, in order."""

    def __init__(self, answer: Callable[[str, dict[str, Any]], dict[str, Any]]) -> None:
        self.answer = answer
        self.seen: list[str] = []
        self.sequences = 0
        self.stoppable: list[str] = []
        """The ops whose wait a cancel may end (sent with a ``stop`` event)."""

    async def request(
        self,
        workspace_id: Any,
        op: str,
        args: dict[str, Any],
        *,
        timeout: float,  # noqa: ASYNC109 - the shore's own bound
        stop: trio.Event | None = None,
    ) -> dict[str, Any]:
        if stop is not None:
            self.stoppable.append(op)
        if op == "observed":  # as the extension runs it: observe, hold on a named fact, or go on
            return await self._observed(workspace_id, args, timeout)
        if op == "cdp_sequence":  # as the extension runs it: command by command, counted
            self.sequences += 1
            for done, command in enumerate(args["commands"]):
                single = {"tabId": args["tabId"], **command}
                try:
                    answer = await self.request(workspace_id, "cdp", single, timeout=timeout)
                except BrowserError as error:
                    error.completed = done
                    raise
                if "dialog" in answer:
                    return {"dialog": answer["dialog"], "completed": done, "delivered": True}
            return {"completed": len(args["commands"])}
        await trio.lowlevel.checkpoint()
        name = args.get("method") or args.get("fn") or ""
        kind = (args.get("params") or {}).get("type", "")
        self.seen.append(" ".join(part for part in (op, name, kind) if part))
        return self.answer(op, args)


    async def _observed(self, workspace_id: Any, args: dict[str, Any], timeout: float) -> Any:  # noqa: ASYNC109
        look = {"tabId": args["tabId"], "fn": "observe", "args": args["observe"]["args"]}
        try:
            observed: Any = await self.request(workspace_id, "content", look, timeout=timeout)
        except BrowserError as error:
            if error.code == "dialog_open":
                raise
            observed = None
        seen = observed.get("value") if isinstance(observed, dict) else None
        facts = args.get("holdIf") or []
        if isinstance(observed, dict) and "dialog" in observed:
            return {"observed": observed, "held": True}
        if isinstance(seen, dict) and any(seen.get(fact) for fact in facts):
            return {"observed": observed, "held": True}
        then = args["then"]
        inner = {**then["args"], "tabId": args["tabId"]}
        return {
            "observed": observed,
            "answer": await self.request(workspace_id, then["op"], inner, timeout=timeout),
        }


def handler(name: str, browser: Any, workspaces: Any = None, **deps: Any) -> ToolHandler:
    """The registry's handler of tool ``name`` over ``browser`` (and ``workspaces``)."""
    return tool_handlers(ToolDeps(browser, workspaces, **deps))[name]
