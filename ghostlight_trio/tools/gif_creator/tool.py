"""``gif_creator``: record browser work on one tab and export it as an animated GIF.

``start_recording`` takes a first frame (no frame, no recording); every successful call on the
tab afterwards adds one (``recorder.Recorder.after_call``); ``export`` encodes the recording,
then returns it (``download: true``), puts it into a file input (``ref``) or drops it at a
screenshot point (``coordinate``), and only once delivered stops it as exported. A GIF larger
than its delivery carries is not delivered: the export says so and how to make it smaller
(``options: {"maxWidth": N}``), and the recording stays as it was. Memory only, never logged.
"""

from __future__ import annotations

import base64
import math
from functools import partial
from typing import Any

import attrs
import trio

from ...browser import wire
from ...engine.contracts import ToolCall, ToolResult
from ...transport.bridge import ImageBlock
from ...transport.framing import BRIDGE_FRAME_CEILING
from ..shared.channel import PageChannel
from ..shared.guard import ToolInputError, guarded
from ..shared.placement import byte_size, drop_point, place_files
from ..shared.protocols import TabOwners
from ..shared.screenshots import ContextBook
from .encoder import GIF_WIDTH, GifTooLarge, encode_gif
from .recorder import IDLE_S, KEPT_S, OPTIONS, TOTAL_S, Recorder, Recording

AUTO_STOPS = frozenset(
    {"idle", "time_limit", "frame_limit", "size_limit", "tab_closed", "tab_left"}
)
DEFAULT_NAME = "recording.gif"
MIN_WIDTH = 100
"""The narrowest GIF an export's ``maxWidth`` asks for."""
HEADROOM = 256 * 1024
"""Room left in a delivery for what goes with the GIF (the answer's text and facts)."""
DOWNLOAD_LIMIT = BRIDGE_FRAME_CEILING - HEADROOM
"""The largest GIF a download carries: the answer travels in one bridge frame."""
PLACE_LIMIT = (wire.MAX_CHUNKED_BYTES - HEADROOM) * 3 // 4
"""The largest GIF put into a page: it travels base64-encoded in one browser request."""


@attrs.frozen
class GifCreator:
    _channel: PageChannel
    _recorder: Recorder
    _contexts: ContextBook
    _owners: TabOwners

    async def __call__(self, call: ToolCall, tab: int) -> ToolResult:
        action = str(call.arguments["action"])
        ws = call.context.workspace_id
        recording = self._recorder.get(ws, tab)
        if action == "start_recording":
            if recording is not None and recording.state == "recording":
                raise ToolInputError(
                    f"Tab {tab} is already being recorded ({recording.recording_id}); export or"
                    " stop that recording first."
                )
            options = _options(call.arguments.get("options") or {})
            recording = await self._recorder.begin(call, tab, options)
            return self._summary(recording, f"Recording tab {tab} in memory: one frame now, and"
                                 " one after each call on this tab. Export it when done.")  # fmt: skip
        if action == "clear":
            cleared = self._recorder.clear(ws, tab)
            text = "Recording cleared; its frames are gone." if cleared else f"No recording on tab {tab}."
            return ToolResult.text(text, structured={"cleared": cleared, "storage": "memory_only"})
        left = not self._owners.verify_tab(ws, tab)
        if recording is None and left:
            raise ToolInputError(f"No recording on tab {tab}, which has left this workspace.")
        if recording is None:
            raise ToolInputError(f"No recording on tab {tab}; start one with action start_recording.")
        if left:
            # The engine let the call through for the recording alone (status, stop, clear, an
            # export to the caller): nothing here reaches the tab, which is no longer ours.
            recording.stop("tab_left", trio.current_time())
        if action == "stop_recording":
            recording.stop("requested", trio.current_time())
            return self._summary(recording, f"Recording stopped with {len(recording.frames)} frame(s).")
        if action == "status":
            going = recording.state == "recording"
            said = "Recording: a frame follows each call on this tab." if going else "Stopped."
            return self._summary(recording, said)
        return await self._export(call, tab, recording)

    async def _export(self, call: ToolCall, tab: int, recording: Recording) -> ToolResult:
        arguments = call.arguments
        download = arguments.get("download") is True
        ref, point = arguments.get("ref"), arguments.get("coordinate")
        if sum(1 for given in (download, ref is not None, point is not None) if given) != 1:
            raise ToolInputError(
                "export needs exactly one of download: true (the GIF comes back), ref (a file"
                " input) or coordinate (a drop point); nothing was exported."
            )
        at = None if point is None else drop_point(point, "nothing was exported")
        width = _export_width(arguments.get("options"))
        if not recording.frames:
            raise ToolInputError("The recording has no frames; nothing was exported.")
        limit = DOWNLOAD_LIMIT if download else PLACE_LIMIT
        # The call holds the tab's lease: no frame is added while the GIF is made and delivered.
        # Made one frame at a time in a worker thread, which stops at the next frame when the
        # call is cancelled, and as soon as the GIF outgrows what its delivery carries.
        try:
            data = await trio.to_thread.run_sync(
                partial(
                    encode_gif,
                    recording,
                    max_width=width,
                    limit=limit,
                    check=trio.from_thread.check_cancelled,
                )
            )
        except GifTooLarge as large:
            return self._too_large(recording, large, "download" if download else "page")
        name = str(arguments.get("filename") or DEFAULT_NAME)
        what = f"{name} ({len(recording.frames)} frames, {byte_size(len(data))})"
        delivery = {"gif_bytes": len(data), "filename": name}
        if download:
            recording.stop("exported", trio.current_time())
            extra = delivery | {"delivery": "download"}
            result = self._summary(recording, f"Exported {what}.", extra)
            return ToolResult(
                kind="ok",
                content=[*result.content, ImageBlock(data=data, mime_type="image/gif")],
                structured=result.structured,
            )
        files = [{"name": name, "mimeType": "image/gif", "data": base64.b64encode(data).decode()}]

        async def place(call: ToolCall, tab: int) -> ToolResult:
            return await place_files(
                self._channel, call, tab, files, len(data), operation="gif_creator",
                ref=None if ref is None else str(ref), point=at, contexts=self._contexts,
            )  # fmt: skip

        placed = await guarded(place)(call)
        if placed.kind != "ok":
            return self._not_exported(placed, recording)
        recording.stop("exported", trio.current_time())
        structured = {**(placed.structured or {}), **self._facts(recording), **delivery}
        return ToolResult(kind="ok", content=placed.content, structured=structured)

    def _too_large(self, recording: Recording, large: GifTooLarge, delivery: str) -> ToolResult:
        """An export whose GIF would not fit its delivery: nothing was delivered, and the
        recording is left as it was, to be exported again smaller."""
        smaller = max(MIN_WIDTH, int(large.width * math.sqrt(large.limit / large.estimate) * 0.9))
        smaller -= smaller % 10
        carried = "a download" if delivery == "download" else "one request into a page"
        how = (
            f"export again with options {{\"maxWidth\": {smaller}}} (it is {large.width} px"
            " wide now)"
            if large.width > MIN_WIDTH
            else "clear it and record fewer calls"
        )
        lead = (
            f"Nothing was exported: the GIF of {len(recording.frames)} frames would be about"
            f" {byte_size(large.estimate)}, more than the {byte_size(large.limit)} {carried}"
            f" carries. The recording is left as it was: {how}."
        )
        state = self._summary(recording, lead)
        structured = {
            "exported": False,
            "gif_bytes_estimate": large.estimate,
            "limit_bytes": large.limit,
            "suggested_max_width": smaller,
            "recording": state.structured,
        }
        return ToolResult(kind="tool_error", content=state.content, structured=structured)

    def _not_exported(self, failed: ToolResult, recording: Recording) -> ToolResult:
        """A placement that failed, saying so and that the recording was left as it was (a
        recording still recording goes on)."""
        lead = (
            "Nothing was exported" if failed.kind == "tool_error"
            else "The GIF may or may not have been placed"
        )  # fmt: skip
        state = self._summary(recording, f"{lead}; the recording is left as it was.")
        structured = (failed.structured or {}) | {"recording": state.structured}
        return ToolResult(
            kind=failed.kind, content=[*failed.content, *state.content], structured=structured
        )

    def _summary(
        self, recording: Recording, lead: str, extra: dict[str, Any] | None = None
    ) -> ToolResult:
        facts = self._facts(recording) | (extra or {})
        text = (
            f"{lead} [{recording.recording_id}: {facts['state']}, {facts['frame_count']} frame(s),"
            f" {facts['bytes_held']} bytes in memory"
            + (f", stopped: {recording.stop_reason}" if recording.stop_reason else "")
            + (f", {recording.skipped} frame(s) skipped: the page could not be captured"
               if recording.skipped else "")
            + (f", {recording.withheld} frame(s) not taken: the tab showed a page the policy"
               " does not let this workspace see" if recording.withheld else "")  # fmt: skip
            + "]"
        )
        return ToolResult.text(text, structured=facts)

    def _facts(self, recording: Recording) -> dict[str, Any]:
        now = trio.current_time()
        last = recording.frames[-1].at if recording.frames else recording.started
        recording_now = recording.state == "recording"
        facts: dict[str, Any] = {
            "recording_id": recording.recording_id,
            "state": recording.state,
            "storage": "memory_only",
            "native_tab_id": recording.tab,
            "frame_count": len(recording.frames),
            "bytes_held": recording.bytes_held,
            "duration_ms": round(((recording.stopped_at or now) - recording.started) * 1000),
            "idle_remaining_ms": round(max(0.0, last + IDLE_S - now) * 1000) if recording_now else 0,
            "hard_remaining_ms": round(max(0.0, recording.started + TOTAL_S - now) * 1000)
            if recording_now else 0,
            "stop_reason": recording.stop_reason or None,
            "auto_stopped": recording.stop_reason in AUTO_STOPS,
            "frames_skipped": recording.skipped,
            "frames_withheld": recording.withheld,
            "content_logged": False,
            "next": ["export"] if recording.frames else ["start_recording"],
        }
        if recording.stopped_at is not None:
            facts["expires_in_ms"] = round(max(0.0, recording.stopped_at + KEPT_S - now) * 1000)
        return facts


def _export_width(given: Any) -> int:
    """The width an export's ``options`` ask for (``maxWidth``), else the usual one."""
    if given is None:
        return GIF_WIDTH
    bad = (
        f"export takes options {{\"maxWidth\": N}} only, N a whole number of pixels from"
        f" {MIN_WIDTH} to {GIF_WIDTH} (the drawing options are chosen at start_recording);"
        " nothing was exported."
    )
    width = given.get("maxWidth", GIF_WIDTH) if isinstance(given, dict) else None
    if (
        not isinstance(width, int | float)
        or isinstance(width, bool)
        or set(given) - {"maxWidth"}
        or not MIN_WIDTH <= width <= GIF_WIDTH
        or width != int(width)
    ):
        raise ToolInputError(bad)
    return int(width)


def _options(given: Any) -> dict[str, bool]:
    """The recording's drawing options: only the known ones, each true or false."""
    if not isinstance(given, dict):
        raise ToolInputError(f"options must be an object of {', '.join(OPTIONS)}; nothing was recorded.")
    unknown = sorted(set(given) - set(OPTIONS))
    if unknown:
        raise ToolInputError(
            f"Unknown option(s) {', '.join(map(repr, unknown))}; the options are"
            f" {', '.join(OPTIONS)}. Nothing was recorded."
        )
    wrong = sorted(name for name, value in given.items() if not isinstance(value, bool))
    if wrong:
        raise ToolInputError(
            f"Option(s) {', '.join(wrong)} must be true or false; nothing was recorded."
        )
    return dict(given)
