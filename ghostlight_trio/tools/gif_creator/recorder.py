"""Recordings of browser work for ``gif_creator``: frames kept in memory, encoded on export.

A recording belongs to one workspace and one tab. It starts with a frame of the tab, and
after every successful call on that tab (the engine's after-call hook, while the tab is still
leased) one more frame is taken, labelled with the call and, for a pointer action, where it
landed. A page that cannot be captured (a chrome:// page) costs only that frame. Nothing is
written to disk and nothing of it is logged. A recording stops by request, at export, when its
tab is gone or has left the workspace, or by itself: after 30 s without a frame, 120 s in all,
100 frames or 16 MiB; a stopped one is kept for 5 minutes (``forget_workspace`` drops them all
when their workspace goes). All recordings together hold at most 64 MiB; over that, the
workspace holding the most loses its oldest recording first.
"""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import attrs
import trio

from ...browser.errors import BrowserError, BrowserFailure
from ...engine.contracts import ToolCall, ToolResult
from ..shared.capture import capture
from ..shared.channel import INFO_BOUND, PageChannel
from ..shared.dialogs import PageDialog
from ..shared.screenshots import ContextBook

IDLE_S = 30.0
TOTAL_S = 120.0
KEPT_S = 300.0
MAX_FRAMES = 100
MAX_BYTES = 16 * 1024 * 1024
ALL_BYTES = 64 * 1024 * 1024
OPTIONS = ("showClickIndicators", "showDragPaths", "showActionLabels", "showProgressBar",
           "showWatermark")  # fmt: skip


@attrs.define
class Frame:
    jpeg: bytes
    at: float
    label: str
    point: tuple[float, float] | None = None
    """Where a pointer action landed, in this frame's pixels."""
    path: tuple[tuple[float, float], tuple[float, float]] | None = None
    url: str = ""
    """The page the frame shows (never logged): what an export after the tab left is judged
    at, since the tab can no longer be asked."""


@attrs.define
class Recording:
    recording_id: str
    workspace: str | None
    tab: int
    options: dict[str, bool]
    started: float
    frames: list[Frame] = attrs.Factory(list)
    state: str = "recording"
    stop_reason: str = ""
    stopped_at: float | None = None
    skipped: int = 0
    """Frames that could not be taken although the tab was still there."""
    withheld: int = 0
    """Frames not taken because the tab showed a page the policy closes to the workspace."""

    @property
    def bytes_held(self) -> int:
        return sum(len(frame.jpeg) for frame in self.frames)

    def stop(self, reason: str, now: float) -> None:
        if self.state == "recording":
            self.state, self.stop_reason, self.stopped_at = "stopped", reason, now


class Recorder:
    """Every recording of the service, and the after-call hook that adds frames."""

    def __init__(
        self,
        channel: PageChannel,
        contexts: ContextBook,
        clock: Any = trio.current_time,
        may_see: Callable[[str | None, int], Awaitable[bool]] | None = None,
    ) -> None:
        self._channel = channel
        self._may_see = may_see
        """The policy's word on seeing the tab's page now (none: every page may be seen)."""
        self._contexts = contexts
        """The computer tool's coordinate models: where a click given in screenshot pixels
        landed on the page."""
        self._clock = clock
        self._recordings: dict[tuple[str | None, int], Recording] = {}

    # --- lifecycle ---------------------------------------------------------------------------

    def get(self, workspace: str | None, tab: int) -> Recording | None:
        self._expire()
        return self._recordings.get((workspace, tab))

    async def begin(self, call: ToolCall, tab: int, options: Mapping[str, Any]) -> Recording:
        """A new recording of the tab, with its first frame. The frame is taken first: when it
        cannot be, this raises and nothing changed (an earlier recording of the tab stays)."""
        started = self._clock()
        frame = await self._frame(call, tab, "start", None)
        recording = self.start(call.context.workspace_id, tab, options)
        recording.started = started
        recording.frames.append(frame)
        self._within_all_bytes(recording)
        return recording

    def start(self, workspace: str | None, tab: int, options: Mapping[str, Any]) -> Recording:
        """A new, empty recording of the tab, replacing any earlier one."""
        self._expire()
        chosen = {name: bool(options.get(name, True)) for name in OPTIONS}
        recording = Recording(
            recording_id=f"rec_{secrets.token_hex(8)}",
            workspace=workspace,
            tab=tab,
            options=chosen,
            started=self._clock(),
        )
        self._recordings[(workspace, tab)] = recording
        return recording

    def pages(self, workspace: str | None, tab: int) -> list[str]:
        """The pages the tab's recording shows, each once, in the order first seen (none
        without a recording)."""
        recording = self.get(workspace, tab)
        if recording is None:
            return []
        return list(dict.fromkeys(frame.url for frame in recording.frames if frame.url))

    def clear(self, workspace: str | None, tab: int) -> bool:
        return self._recordings.pop((workspace, tab), None) is not None

    def _expire(self) -> None:
        """Stop what ran too long or idled, drop what was kept long enough (checked on use:
        no timer runs for a recording)."""
        now = self._clock()
        for key, recording in list(self._recordings.items()):
            last = recording.frames[-1].at if recording.frames else recording.started
            if recording.state == "recording" and now - recording.started >= TOTAL_S:
                recording.stop("time_limit", recording.started + TOTAL_S)
            elif recording.state == "recording" and now - last >= IDLE_S:
                recording.stop("idle", last + IDLE_S)
            if recording.stopped_at is not None and now - recording.stopped_at >= KEPT_S:
                del self._recordings[key]

    # --- frames ------------------------------------------------------------------------------

    async def add_frame(self, call: ToolCall, tab: int, label: str, result: ToolResult | None) -> None:
        """One more frame of a recorded tab (the call holds its lease). A frame that cannot be
        taken is skipped; when that is because the tab is gone, the recording stops, keeping
        its frames."""
        recording = self.get(call.context.workspace_id, tab)
        if recording is None or recording.state != "recording":
            return
        if self._may_see is not None and not await self._may_see(call.context.workspace_id, tab):
            recording.withheld += 1
            return
        try:
            frame = await self._frame(call, tab, label, result)
        except (BrowserFailure, PageDialog):
            if await self._gone(call, tab):
                recording.stop("tab_closed", self._clock())
            else:
                recording.skipped += 1
            return
        recording.frames.append(frame)
        if len(recording.frames) >= MAX_FRAMES:
            recording.stop("frame_limit", self._clock())
        elif recording.bytes_held >= MAX_BYTES:
            recording.stop("size_limit", self._clock())
        self._within_all_bytes(recording)

    async def _frame(
        self, call: ToolCall, tab: int, label: str, result: ToolResult | None
    ) -> Frame:
        """A frame of the tab now; raises what the capture raised."""
        shot = await capture(self._channel, call, tab, last=self._contexts.get(tab))
        frame = Frame(shot.data, self._clock(), label, url=shot.viewport.url)
        target = self._landing(call, tab, result)
        if target is not None:
            frame.point = _to_shot(shot.context, *target)
        drag = _drag(call)
        if drag is not None:
            start, end = (_to_shot(shot.context, *self._contexts.to_css(tab, *p)) for p in drag)
            frame.path = (start, end)
        return frame

    async def _gone(self, call: ToolCall, tab: int) -> bool:
        """Whether the browser says the tab no longer exists (closed); any other answer, or
        none, leaves it counted as there."""
        try:
            await self._channel.read(call, "tab_info", {"tabId": tab}, INFO_BOUND)
        except BrowserError as error:
            return error.code == "tab_not_found"
        except (BrowserFailure, PageDialog):
            pass
        return False

    def _within_all_bytes(self, keep: Recording) -> None:
        """Over the bound for all recordings, the workspace holding the most bytes loses its
        oldest recording first (on a tie, the older recording goes), so an agent's recordings
        push out its own, not another's. ``keep``, the one just added to, never goes: when it
        is the only recording of the workspace holding the most, the next one loses instead."""
        held: dict[str | None, int] = {}
        for recording in self._recordings.values():
            held[recording.workspace] = held.get(recording.workspace, 0) + recording.bytes_held
        total = sum(held.values())
        while total > ALL_BYTES:
            others = [item for item in self._recordings.items() if item[1] is not keep]
            if not others:
                return
            key, victim = max(others, key=lambda item: (held[item[1].workspace], -item[1].started))
            size = victim.bytes_held
            held[victim.workspace] -= size
            total -= size
            del self._recordings[key]

    def forget_workspace(self, workspace: str | None) -> None:
        """Drop every recording of ``workspace`` (it was released or expired), frames and all."""
        for key in [key for key in self._recordings if key[0] == workspace]:
            del self._recordings[key]

    async def after_call(self, call: ToolCall, result: ToolResult) -> None:
        """The engine's after-call hook: a frame for every successful call on a recorded tab."""
        if not self._recordings or call.context.operation == "gif_creator":
            return
        tab = call.arguments.get("tabId")
        if not isinstance(tab, int) or (call.context.workspace_id, tab) not in self._recordings:
            return
        action = call.arguments.get("action")
        label = call.context.operation + (f" {action}" if isinstance(action, str) else "")
        await self.add_frame(call, tab, label, result)

    def _landing(
        self, call: ToolCall, tab: int, result: ToolResult | None
    ) -> tuple[float, float] | None:
        """Where a pointer action landed, in viewport CSS pixels: the coordinate it was given,
        else the centre of the element its receipt names."""
        point = call.arguments.get("coordinate")
        if call.context.operation == "computer" and isinstance(point, list) and len(point) == 2:
            return self._contexts.to_css(tab, float(point[0]), float(point[1]))
        return _receipt_point(call, result)


def _receipt_point(call: ToolCall, result: ToolResult | None) -> tuple[float, float] | None:
    if call.context.operation not in ("computer", "act_on") or result is None:
        return None
    receipt = (result.structured or {}).get("interactionReceipt") or {}
    target = receipt.get("target") or {}
    if isinstance(target.get("x"), int | float) and isinstance(target.get("y"), int | float):
        return float(target["x"]), float(target["y"])
    return None


def _drag(call: ToolCall) -> tuple[tuple[float, float], tuple[float, float]] | None:
    arguments = call.arguments
    if call.context.operation != "computer" or arguments.get("action") != "left_click_drag":
        return None
    start, end = arguments.get("start_coordinate"), arguments.get("coordinate")
    if not (isinstance(start, list) and isinstance(end, list) and len(start) == len(end) == 2):
        return None
    return (float(start[0]), float(start[1])), (float(end[0]), float(end[1]))


def _to_shot(context: Any, x: float, y: float) -> tuple[float, float]:
    """A viewport CSS point in the pixels of the frame ``context`` describes."""
    scale_x = context.shot_width / max(1.0, context.region_width)
    scale_y = context.shot_height / max(1.0, context.region_height)
    return (x - context.offset_x) * scale_x, (y - context.offset_y) * scale_y
