"""One browser request per engine effect, for the page tools.

Every request that may change the page runs inside ``call.effects.atomic`` (once sent it
drains, even on cancel) and an unknown outcome is handed to the engine as ``UncertainEffect`` so
it can quarantine the tab. Pure reads (``PageChannel.read``) change nothing, so an unanswered
read is reported as a plain failure and leaves the tab usable. A JavaScript dialog that answers or
refuses a request is raised as ``PageDialog`` (see ``page_dialogs.py``).
"""

from __future__ import annotations

from typing import Any

from ..browser.errors import BrowserError, OutcomeUnknown
from ..engine.contracts import ToolCall
from .atomic import atomic_request
from .browser_context import BrowserRequests
from .page_dialogs import check_answer, refusal

CDP_TIMEOUT = 20.0
"""Bound on one CDP command through the extension."""
CONTENT_TIMEOUT = 20.0
"""Bound on one content-script mechanism, including injection."""
CONTENT_WAIT_MS = 15_000
"""How long the extension waits for the page's answer."""


class ToolInputError(Exception):
    """Arguments the agent can correct; reported as a tool error before any browser traffic."""


def tab_of(call: ToolCall) -> int:
    """The call's ``tabId`` (validated by the catalog schema as a number)."""
    tab = call.arguments.get("tabId")
    if isinstance(tab, bool) or not isinstance(tab, int | float) or tab <= 0 or tab != int(tab):
        raise ToolInputError("tabId must be a tab id from tabs_context_mcp.")
    return int(tab)


class PageChannel:
    """The browser requests the page tools make, each as one effect of the calling work."""

    def __init__(self, browser: BrowserRequests) -> None:
        self._browser = browser

    async def request(
        self, call: ToolCall, op: str, args: dict[str, Any], bound: float
    ) -> dict[str, Any]:
        ws = call.context.workspace_id
        if ws is None:
            raise ToolInputError(f"{call.context.operation} needs a workspace; none was given.")
        try:
            answer = await atomic_request(call, self._browser, ws, op, args, bound)
        except BrowserError as error:
            raise refusal(error) or error from None
        return check_answer(answer)

    async def read(
        self, call: ToolCall, op: str, args: dict[str, Any], bound: float
    ) -> dict[str, Any]:
        """A request with no effect on the page (a probe, a screenshot), outside the effect path.

        A read that gets no answer is an error, not an uncertain effect: nothing can have
        changed, so the tab is not quarantined.
        """
        ws = call.context.workspace_id
        if ws is None:
            raise ToolInputError(f"{call.context.operation} needs a workspace; none was given.")
        await call.effects.checkpoint()
        try:
            return check_answer(await self._browser.request(ws, op, args, timeout=bound))
        except BrowserError as error:
            raise refusal(error) or error from None
        except OutcomeUnknown as unknown:
            raise BrowserError(
                f"The browser did not answer the read-only {op} request in time; nothing"
                f" was changed ({unknown.message})",
                hop="extension",
                code="read_timeout",
            ) from None

    async def read_cdp(
        self,
        call: ToolCall,
        tab: int,
        method: str,
        params: dict[str, Any] | None = None,
        bound: float = CDP_TIMEOUT,
    ) -> dict[str, Any]:
        """One side-effect-free CDP command on the tab, as a read; its result object."""
        return _cdp_result(await self.read(call, "cdp", _cdp_args(tab, method, params), bound))

    async def cdp(
        self,
        call: ToolCall,
        tab: int,
        method: str,
        params: dict[str, Any] | None = None,
        bound: float = CDP_TIMEOUT,
    ) -> dict[str, Any]:
        """One CDP command on the tab, as an effect; its result object."""
        return _cdp_result(await self.request(call, "cdp", _cdp_args(tab, method, params), bound))

    async def content(
        self,
        call: ToolCall,
        tab: int,
        fn: str,
        args: dict[str, Any] | None = None,
        bound: float = CONTENT_TIMEOUT,
    ) -> Any:
        """One content-script mechanism in the tab's top frame; its value."""
        wait_ms = int(min(CONTENT_WAIT_MS, max(1.0, bound - 2.0) * 1000))
        request = {"tabId": tab, "fn": fn, "args": args or {}, "timeoutMs": wait_ms}
        answer = await self.request(call, "content", request, bound)
        return answer.get("value")

    async def evaluate(self, call: ToolCall, tab: int, expression: str) -> Any:
        """The by-value result of a side-effect-free probe expression in the page."""
        result = await self.cdp(
            call, tab, "Runtime.evaluate", {"expression": expression, "returnByValue": True}
        )
        return (result.get("result") or {}).get("value")


def _cdp_args(tab: int, method: str, params: dict[str, Any] | None) -> dict[str, Any]:
    return {"tabId": tab, "method": method, "params": params or {}}


def _cdp_result(answer: dict[str, Any]) -> dict[str, Any]:
    result = answer.get("result")
    return result if isinstance(result, dict) else {}
