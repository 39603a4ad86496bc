"""Putting files the service holds into a page: into a file input (by ref) or dropped onto
whatever is at a screenshot point (by coordinate). Shared by upload_image and gif_creator's
export; either way the answer carries an interaction receipt."""

from __future__ import annotations

import math
import mimetypes
from collections.abc import Sequence
from typing import Any, NoReturn

from ...engine.contracts import ToolCall, ToolResult
from ...untrusted.excerpt import excerpt
from .channel import PageChannel
from .guard import ToolInputError
from .receipts import settled_receipt
from .screenshots import ContextBook


def byte_size(size: int) -> str:
    """``size`` in words a person reads at a glance: bytes under 1 KB, then KB, then MB."""
    if size < 1024:
        return f"{size} byte{'' if size == 1 else 's'}"
    if size < 1024 * 1024:
        return f"{round(size / 1024)} KB"
    return f"{size / (1024 * 1024):.1f} MB"


def drop_point(point: Any, nothing: str) -> tuple[float, float]:
    """``coordinate`` as two finite numbers, or ToolInputError ending with ``nothing`` (what did
    not happen). Infinite or NaN values could not even be sent to the page."""
    numbers = (
        isinstance(point, list | tuple) and len(point) == 2
        and all(isinstance(v, int | float) and not isinstance(v, bool) for v in point)
        and all(math.isfinite(v) for v in point)
    )  # fmt: skip
    if not numbers:
        raise ToolInputError(
            f"coordinate must be [x, y]: two finite numbers within the screenshot, in its"
            f" pixels; {nothing}."
        )
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
    total = f"{byte_size(size)} total"
    if ref is not None:
        before = await channel.observe_ref(call, tab, ref)
        done = await channel.content(call, tab, "set_files", {"ref": ref, "files": list(files)})
        done = done if isinstance(done, dict) else {}
        held = done.get("files", [])
        names = ", ".join(excerpt(str(f.get("name", "")), 80) for f in held)
        where: dict[str, Any] = {"ref": ref}
        summary = (
            f"Uploaded {len(held)} file(s) to {_input_words(ref, done.get('standIn'))}:"
            f" {names} ({total}).{_unaccepted(str(done.get('accept') or ''), files)}"
        )
        assurance = "ref"
    else:
        assert point is not None and contexts is not None, "a ref, or a point and its contexts"
        x, y = _drop_css(contexts, tab, point)
        where = {"x": x, "y": y}
        before = await channel.content(call, tab, "observe", where, read=True)
        viewport = before.get("viewport") if isinstance(before, dict) else None
        if isinstance(viewport, dict) and not _inside(x, y, viewport):
            _off_page(point, (x, y), viewport)
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
        (channel, call, where),
        assurance=assurance,
        workspace_id=call.context.workspace_id,
    )


_STAND_IN_WORDS = {
    "inside": "inside it",
    "controls": "that its aria-controls names",
    "beside": "next to it",
    "only": "the page's only file input",
}


def _input_words(ref: str, stand_in: Any) -> str:
    """Which input took the files: the one behind ``ref``, or the one a button or label that is
    no file input stands for (an upload button opening a hidden input), named."""
    if not isinstance(stand_in, dict):
        return f"file input {ref}"
    name = "".join(
        f" {key}={excerpt(str(stand_in[key]), 60)!r}" for key in ("name", "id") if stand_in.get(key)
    )
    hidden = " (hidden)" if stand_in.get("hidden") else ""
    how = _STAND_IN_WORDS.get(str(stand_in.get("via")), "that goes with it")
    return f"the file input <input type=file{name}>{hidden} {how}, as {ref} is not one itself"


def _unaccepted(accept: str, files: Sequence[dict[str, str]]) -> str:
    """A note for files the input's ``accept`` does not list: the browser takes them when set
    this way, but a file chooser would not have offered them, and the page may turn them down."""
    tokens = [token.strip().lower() for token in accept.split(",") if token.strip()]
    if not tokens:
        return ""
    odd = [f for f in files if not any(_accepted(token, f) for token in tokens)]
    if not odd:
        return ""
    names = ", ".join(f"{excerpt(f['name'], 80)} ({f['mimeType']})" for f in odd)
    return (
        f" Note: the input accepts {excerpt(accept, 120)!r}, which {names} do(es) not match: a"
        " file chooser would not have offered it, and the page may refuse it."
    )


def _accepted(token: str, file: dict[str, str]) -> bool:
    mime = file.get("mimeType", "").lower()
    if mime in ("", "application/octet-stream"):  # not given: what the name says, as Chrome does
        mime = (mimetypes.guess_type(file.get("name", ""))[0] or mime).lower()
    if token.startswith("."):
        return file.get("name", "").lower().endswith(token)
    if token.endswith("/*"):
        return mime.startswith(token[:-1])
    return mime == token


def _drop_css(contexts: ContextBook, tab: int, point: tuple[float, float]) -> tuple[float, float]:
    """The viewport CSS point for a point of the tab's latest screenshot, or ToolInputError when
    it lies outside that screenshot (checked before anything is sent)."""
    shot = contexts.get(tab)
    if shot is not None and not (
        0 <= point[0] < shot.shot_width and 0 <= point[1] < shot.shot_height
    ):
        raise ToolInputError(
            f"coordinate ({point[0]:g}, {point[1]:g}) is outside the tab's latest screenshot"
            f" ({shot.shot_width}x{shot.shot_height} pixels); nothing was dropped. Pick a point"
            " inside it, or give a file input's ref."
        )
    x, y = contexts.to_css(tab, *point)
    if not (math.isfinite(x) and math.isfinite(y)):
        _off_page(point, (x, y), None)
    return x, y


def _inside(x: float, y: float, viewport: dict[str, Any]) -> bool:
    """Whether a CSS point lies in the page's viewport (unknown sizes count as inside)."""
    width, height = viewport.get("width"), viewport.get("height")
    if not isinstance(width, int | float) or not isinstance(height, int | float):
        return True
    return 0 <= x < width and 0 <= y < height


def _off_page(
    point: tuple[float, float], css: tuple[float, float], viewport: dict[str, Any] | None
) -> NoReturn:
    """Refuse a drop point that lies outside the visible page: nothing there could take it."""
    size = (
        f"viewport {viewport.get('width'):g}x{viewport.get('height'):g} CSS px, "
        if viewport else ""
    )  # fmt: skip
    raise ToolInputError(
        f"coordinate ({point[0]:g}, {point[1]:g}) is outside the visible page ({size}the point"
        f" maps to ({css[0]:g}, {css[1]:g})); nothing was dropped. Take a screenshot and pick a"
        " point inside it, or give a file input's ref."
    )
