"""One browser request run as a call's atomic effect, shared by every browser tool."""

from __future__ import annotations

from typing import Any

from ..browser.errors import OutcomeUnknown
from ..engine.contracts import ToolCall, UncertainEffect


async def atomic_request(
    call: ToolCall, browser: Any, ws: Any, op: str, args: dict[str, Any], bound: float
) -> dict[str, Any]:
    """One browser request as the call's atomic effect.

    An unknown outcome is raised to the engine as ``UncertainEffect`` (so it quarantines the
    surface) and comes back to the handler as ``OutcomeUnknown`` for its own wording.
    """

    async def effect() -> dict[str, Any]:
        try:
            result: dict[str, Any] = await browser.request(ws, op, args, timeout=bound)
        except OutcomeUnknown as unknown:
            raise UncertainEffect(unknown.proof or f"browser:{op}", unknown.message) from unknown
        return result

    try:
        return await call.effects.atomic(effect)
    except UncertainEffect as uncertain:
        raise OutcomeUnknown(str(uncertain), proof=uncertain.proof) from None
