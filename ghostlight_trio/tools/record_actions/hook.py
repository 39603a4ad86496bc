"""Where recorded steps come from: every state-changing tool, wrapped once by the registry.

While the caller's workspace is not recording, a wrapped call costs one dictionary lookup. While
it records, the target is described by the content script right before the action (its ref
still resolves then, and a click that loads another page has not yet taken it away), the call
runs, and a successful one leaves a step with what the page showed after it. The descriptions
are reads within the call's own lease, each bounded; a page that cannot answer costs the step
its locator, never the call. A page the policy does not let the workspace see is not described
at all (a call allowed to act there may not read it): its step keeps no names, and what was
typed into it is withheld.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import attrs
import trio

from ...engine.contracts import ToolCall, ToolHandler, ToolResult
from ...engine.resources import tab_id_argument
from ..shared.channel import PageChannel
from ..shared.screenshots import ContextBook
from .book import ActionBook
from .locator import Locator, locator_of
from .steps import Shown, may_step, step_of

RECORDED = frozenset(
    {"navigate", "computer", "form_input", "form_fill", "act_on", "tab_control", "dialog",
     "file_upload", "upload_image"}
)  # fmt: skip
POINTED = frozenset(
    {"left_click", "right_click", "double_click", "triple_click", "scroll", "scroll_to"}
)
FOCUSED = frozenset({"type", "key"})
LOOK_BOUND = 3.0
"""One description's time, at most: a recording must not slow the work much."""
FIND_LIMIT = 20
log = logging.getLogger("ghostlight.tools")
MaySee = Callable[[str | None, int], Awaitable[bool]]


@attrs.frozen
class StepTaker:
    """What the wrapped handlers share: the recordings, the page channel, the coordinate
    models that turn a screenshot point into a page point."""

    book: ActionBook
    channel: PageChannel
    contexts: ContextBook
    may_see: MaySee | None = None
    """The policy's word on seeing the tab's page now (none: every page may be seen)."""

    def wrap(self, handlers: Mapping[str, ToolHandler]) -> dict[str, ToolHandler]:
        """``handlers``, the state-changing ones recording their steps."""
        return {
            name: self._recording(name, handler) if name in RECORDED else handler
            for name, handler in handlers.items()
        }

    def _recording(self, tool: str, handler: ToolHandler) -> ToolHandler:
        async def recorded(call: ToolCall) -> ToolResult:
            workspace = call.context.workspace_id
            tab = tab_id_argument(call.arguments)
            if tab is None or not self.book.recording(workspace) or not may_step(tool, call.arguments):
                return await handler(call)
            locator = await self._target(tool, call, tab) if await self._seen(call, tab) else None
            result = await handler(call)
            if result.kind != "ok":
                return result
            step = step_of(tool, call.arguments, locator, result.structured)
            if step is not None:
                closed = tool == "tab_control" and step.kind == "close"
                if not closed and await self._seen(call, tab):
                    step = attrs.evolve(step, after=await self._shown(call, tab))
                self.book.add(workspace, step)
            return result

        return recorded

    async def _seen(self, call: ToolCall, tab: int) -> bool:
        if self.may_see is None:
            return True
        try:
            return await self.may_see(call.context.workspace_id, tab)
        except Exception as failure:  # noqa: BLE001 - unknown is no
            log.debug("no word on seeing tab %s for a recorded step: %s", tab, failure)
            return False

    async def _target(self, tool: str, call: ToolCall, tab: int) -> Locator | None:
        """The call's target described, or None when it has none or the page could not say."""
        arguments = call.arguments
        action = arguments.get("action")
        if tool == "act_on":
            return await self._act_on_target(call, tab, arguments.get("target") or {})
        ask: dict[str, Any] | None = None
        if isinstance(arguments.get("ref"), str):
            ask = {"ref": arguments["ref"]}
        elif tool == "computer" and action in POINTED and _point(arguments.get("coordinate")):
            x, y = self.contexts.to_css(tab, *arguments["coordinate"])
            ask = {"x": x, "y": y}
        elif tool == "computer" and action in FOCUSED:
            ask = {"focused": True}
        if ask is None:
            return None
        seen = await self._look(call, tab, "locator", ask)
        return locator_of(seen.get("element")) if isinstance(seen, dict) else None

    async def _act_on_target(self, call: ToolCall, tab: int, target: Mapping[str, Any]) -> Locator | None:
        """act_on's target: by ref, described; by name or query, the element act_on would
        take, described (its role, label and whether it is secret come only from the page)."""
        ref = target.get("ref")
        if not isinstance(ref, str):
            query = str(target.get("name") or target.get("query") or "")
            found = await self._look(
                call, tab, "find_text", {"query": query, "limit": FIND_LIMIT, "strict": True}
            )
            ref = _chosen(found, target)
            if ref is None:
                return None
        seen = await self._look(call, tab, "locator", {"ref": ref})
        return locator_of(seen.get("element")) if isinstance(seen, dict) else None

    async def _shown(self, call: ToolCall, tab: int) -> Shown | None:
        seen = await self._look(call, tab, "locator", {"page": True})
        page = seen.get("page") if isinstance(seen, dict) else None
        if not isinstance(page, dict):
            return None
        shown: dict[str, Any] = page["shown"] if isinstance(page.get("shown"), dict) else {}
        return Shown(
            url=str(page.get("url", "")),
            title=str(page.get("title", "")),
            role=str(shown.get("role", "")),
            text=str(shown.get("text", "")),
        )

    async def _look(self, call: ToolCall, tab: int, fn: str, args: dict[str, Any]) -> Any:
        """One bounded read; None when the page could not answer (a dialog, a load, a page the
        extension cannot script)."""
        try:
            with trio.move_on_after(LOOK_BOUND):
                return await self.channel.content(call, tab, fn, args, LOOK_BOUND, read=True)
        except trio.Cancelled:
            raise
        except Exception as failure:  # noqa: BLE001 - a description is never worth the call
            log.debug("no %s for a recorded step on tab %s: %s", fn, tab, failure)
        return None


def _chosen(found: Any, target: Mapping[str, Any]) -> str | None:
    """The ref of the element a name or query fits best (an exact name, of the role given)."""
    results = found.get("results") if isinstance(found, dict) else None
    if not isinstance(results, list):
        return None
    fitting = [r for r in results if isinstance(r, dict) and isinstance(r.get("ref"), str)]
    if target.get("name"):
        wanted = " ".join(str(target["name"]).lower().split())
        role = str(target.get("role") or "").strip().lower()
        fitting = [
            r for r in fitting
            if " ".join(str(r.get("name", "")).lower().split()) == wanted
            and (not role or str(r.get("role", "")).lower() == role)
        ]  # fmt: skip
    if not fitting:
        return None
    best = min(fitting, key=lambda r: (r.get("matchRank", 0), not r.get("interactive")))
    return str(best["ref"])


def _point(value: Any) -> bool:
    return (
        isinstance(value, list)
        and len(value) == 2
        and all(isinstance(v, int | float) and not isinstance(v, bool) for v in value)
    )
