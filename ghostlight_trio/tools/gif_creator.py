"""``gif_creator``: record browser work on one tab and export it as an animated GIF.

``start_recording`` takes a first frame (no frame, no recording); every successful call on the
tab afterwards adds one (``gif_recorder.Recorder.after_call``); ``export`` encodes the recording,
then returns it (``download: true``), puts it into a file input (``ref``) or drops it at a
screenshot point (``coordinate``), and only once delivered stops it as exported. Memory only,
never logged.
"""

from __future__ import annotations

import base64
from typing import Any

import trio

from ..engine.contracts import ToolCall, ToolHandler, ToolResult
from ..transport.bridge import ImageBlock
from .browser_calls import PageChannel, ToolInputError, guarded
from .browser_context import BrowserRequests
from .gif_recorder import IDLE_S, KEPT_S, OPTIONS, TOTAL_S, Recorder, Recording, encode_gif
from .placement import byte_size, drop_point, place_files
from .screenshots import ContextBook
from .tab_changes import TabOwners

AUTO_STOPS = frozenset(
    {"idle", "time_limit", "frame_limit", "size_limit", "tab_closed", "tab_left"}
)
DEFAULT_NAME = "recording.gif"


def gif_creator_handlers(
    workspaces: TabOwners, browser: BrowserRequests, *, recorder: Recorder, contexts: ContextBook
) -> dict[str, ToolHandler]:
    """``workspaces`` only tells whether the tab is still the workspace's: the engine has
    checked the call may name it before the handler runs."""
    return {"gif_creator": guarded(GifCreator(PageChannel(browser), recorder, contexts, workspaces))}


class GifCreator:
    def __init__(
        self, channel: PageChannel, recorder: Recorder, contexts: ContextBook, owners: TabOwners
    ) -> None:
        self._channel = channel
        self._recorder = recorder
        self._contexts = contexts
        self._owners = owners

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
        if not recording.frames:
            raise ToolInputError("The recording has no frames; nothing was exported.")
        # The call holds the tab's lease: no frame is added while the GIF is made and delivered.
        data = await trio.to_thread.run_sync(encode_gif, recording)
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
