"""Putting files the service holds into a page: into a file input (by ref) or dropped onto
whatever is at a screenshot point (by coordinate). Shared by upload_image and gif_creator's
export; either way the answer carries an interaction receipt."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..engine.contracts import ToolCall, ToolResult
from .browser_calls import PageChannel, ToolInputError
from .receipts import build_receipt, observe_settled, receipt_result
from .screenshots import ContextBook


def drop_point(point: Any, nothing: str) -> tuple[float, float]:
    """``coordinate`` as two numbers, or ToolInputError ending with ``nothing`` (what did not
    happen)."""
    numbers = (
        isinstance(point, list | tuple) and len(point) == 2
        and all(isinstance(v, int | float) and not isinstance(v, bool) for v in point)
    )  # fmt: skip
    if not numbers:
        raise ToolInputError(f"coordinate must be [x, y] in screenshot pixels; {nothing}.")
    return float(point[0]), float(point[1])


async def place_files(
    channel: PageChannel,
    contexts: ContextBook,
    call: ToolCall,
    tab: int,
    files: Sequence[dict[str, str]],
    what: str,
    *,
    ref: str | None,
    point: tuple[float, float] | None,
    operation: str,
) -> ToolResult:
    """Place ``files`` (described as ``what``) by ``ref`` or at ``point``; a drop says whether
    the page claimed it, the only sign a drop target gives."""
    if ref is not None:
        before = await channel.observe_ref(call, tab, ref)
        await channel.content(call, tab, "set_files", {"ref": ref, "files": list(files)})
        where: dict[str, Any] = {"ref": ref}
        summary, assurance = f"Put {what} into file input {ref}.", "ref"
    else:
        assert point is not None
        x, y = contexts.to_css(tab, *point)
        where = {"x": x, "y": y}
        before = await channel.content(call, tab, "observe", where)
        dropped = await channel.content(call, tab, "drop_files", {**where, "files": list(files)})
        claimed = isinstance(dropped, dict) and bool(dropped.get("handled"))
        verdict = (
            "the page claimed the drop" if claimed
            else "the page did not claim it (no drop target there handled it)"
        )  # fmt: skip
        summary, assurance = f"Dropped {what} at ({point[0]:g}, {point[1]:g}): {verdict}.", "coordinate"
    await call.effects.checkpoint()
    after = await observe_settled(lambda: channel.content(call, tab, "observe", where))
    target = after.get("target") if isinstance(after, dict) else None
    # A page between documents for the whole settling bound gives no observation.
    receipt = None if after is None else build_receipt(operation, tab, before, after, assurance=assurance, target=target)
    return receipt_result(summary, receipt, call.context.workspace_id)
