"""One browser request run as a call's atomic effect, shared by every browser tool."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from ...browser.errors import OutcomeUnknown
from ...engine.contracts import ToolCall, UncertainEffect


@runtime_checkable
class WaitsForBrowser(Protocol):
    """A browser side that can wait for an attached browser before anything is sent."""

    async def wait_for_browser(self, workspace_id: Any, args: dict[str, Any]) -> None: ...


async def atomic_request(
    call: ToolCall,
    browser: Any,
    ws: Any,
    op: str,
    args: dict[str, Any],
    bound: float,
    *,
    wait_ends_on_cancel: bool = False,
) -> dict[str, Any]:
    """One browser request as the call's atomic effect.

    An unknown outcome is raised to the engine as ``UncertainEffect`` (so it quarantines the
    surface) and comes back to the handler as ``OutcomeUnknown`` for its own wording.
    ``wait_ends_on_cancel``: the request's rest, once sent, is only a wait for the browser (a
    page load): a cancelled call asks the browser to stop waiting, and is answered at once,
    instead of holding its tab for the whole load. What the request set going goes on.
    """
    bounds: dict[str, Any] = {"timeout": bound}
    if wait_ends_on_cancel:
        bounds["stop"] = call.effects.caller_cancelled()

    async def effect() -> dict[str, Any]:
        try:
            result: dict[str, Any] = await browser.request(ws, op, args, **bounds)
        except OutcomeUnknown as unknown:
            raise UncertainEffect(unknown.proof or f"browser:{op}", unknown.message) from unknown
        return result

    if isinstance(browser, WaitsForBrowser):
        # Waiting for a browser to attach sends nothing: it happens before the effect, where
        # the caller's cancel still ends it (the effect itself drains, shielded).
        await browser.wait_for_browser(ws, args)
    try:
        return await call.effects.atomic(effect)
    except UncertainEffect as uncertain:
        raise OutcomeUnknown(str(uncertain), proof=uncertain.proof) from None
