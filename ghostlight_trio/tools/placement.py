"""Putting files the service holds into a page: into a file input (by ref) or dropped onto
whatever is at a screenshot point (by coordinate). Shared by upload_image and gif_creator's
export; either way the answer carries an interaction receipt."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..engine.contracts import ToolCall, ToolResult
from ..transport.excerpt import excerpt
from .browser_calls import PageChannel, ToolInputError
from .receipts import settled_receipt
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
    call: ToolCall,
    tab: int,
    files: Sequence[dict[str, str]],
    size: int,
    *,
    operation: str,
    ref: str | None = None,
    point: tuple[float, float] | None = None,
    contexts: ContextBook | None = None,
) -> ToolResult:
    """Place ``files`` (``size`` bytes in all, decoded) into the file input behind ``ref``, or
    drop them at screenshot ``point`` (mapped through ``contexts``). The answer names what the
    input then holds, or whether the page claimed the drop: the only sign a drop target gives."""
    total = f"{max(1, round(size / 1024))} KB total"
    if ref is not None:
        before = await channel.observe_ref(call, tab, ref)
        done = await channel.content(call, tab, "set_files", {"ref": ref, "files": list(files)})
        held = done.get("files", []) if isinstance(done, dict) else []
        names = ", ".join(excerpt(str(f.get("name", "")), 80) for f in held)
        where: dict[str, Any] = {"ref": ref}
        summary = f"Uploaded {len(held)} file(s) to file input {ref}: {names} ({total})."
        assurance = "ref"
    else:
        assert point is not None, "a ref or a point"
        x, y = (contexts or ContextBook()).to_css(tab, *point)
        where = {"x": x, "y": y}
        before = await channel.content(call, tab, "observe", where)
        dropped = await channel.content(call, tab, "drop_files", {**where, "files": list(files)})
        claimed = isinstance(dropped, dict) and bool(dropped.get("handled"))
        verdict = (
            "the page claimed the drop" if claimed
            else "the page did not claim it (no drop target there handled it)"
        )  # fmt: skip
        names = ", ".join(excerpt(f["name"], 80) for f in files)
        summary = f"Dropped {names} ({total}) at ({point[0]:g}, {point[1]:g}): {verdict}."
        assurance = "coordinate"
    await call.effects.checkpoint()
    return await settled_receipt(
        operation,
        tab,
        summary,
        before,
        lambda: channel.content(call, tab, "observe", where),
        assurance=assurance,
        workspace_id=call.context.workspace_id,
    )
