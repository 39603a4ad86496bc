"""GIF recordings: frames of different sizes make one well-formed GIF; recordings stop and go by
themselves on their bounds, checked whenever they are used; a start, an export or a frame that
fails (an export too large to deliver among them) leaves a recording in a state that says what
happened."""

from __future__ import annotations

import base64
import io
from typing import Any

import trio
from PIL import Image

from ghostlight_trio.browser.errors import BrowserError
from ghostlight_trio.engine.contracts import ToolResult
from ghostlight_trio.tools.gif_creator import tool as gif_creator
from ghostlight_trio.tools.gif_creator.encoder import encode_gif
from ghostlight_trio.tools.gif_creator.recorder import IDLE_S, KEPT_S, TOTAL_S, Frame, Recorder
from ghostlight_trio.tools.gif_creator.tool import GifCreator
from ghostlight_trio.tools.shared.channel import PageChannel
from ghostlight_trio.tools.shared.guard import guarded
from ghostlight_trio.tools.shared.screenshots import ContextBook
from ghostlight_trio.transport.bridge import ImageBlock

from .fakes import ScriptedBrowser, tool_call


def jpeg(width: int, height: int, color: tuple[int, int, int]) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), color).save(out, format="JPEG")
    return out.getvalue()


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_frames_of_different_sizes_make_one_gif_with_nothing_left_over() -> None:
    clock = Clock()
    recorder = Recorder(None, ContextBook(), clock=clock)  # type: ignore[arg-type]
    recording = recorder.start("ws", 7, {"showWatermark": False, "showProgressBar": False})
    recording.frames = [
        Frame(jpeg(1600, 1000, (0, 0, 0)), 100.0, "start"),  # scaled down to 800 x 500
        Frame(jpeg(800, 400, (250, 250, 250)), 101.0, "computer left_click", point=(400, 200)),
    ]
    gif = Image.open(io.BytesIO(encode_gif(recording)))
    assert gif.n_frames == 2 and gif.size == (800, 500)
    gif.seek(1)
    second = gif.convert("RGB")
    assert second.getpixel((400, 480)) == (255, 255, 255)  # below the smaller frame: canvas, not frame 1
    assert second.getpixel((400, 212))[0] > 200 and second.getpixel((400, 212))[1] < 80  # click ring


def test_recordings_stop_when_idle_or_too_long_and_are_forgotten_later() -> None:
    clock = Clock()
    recorder = Recorder(None, ContextBook(), clock=clock)  # type: ignore[arg-type]
    idle = recorder.start("ws", 1, {})
    idle.frames = [Frame(b"x", clock.now, "start")]
    clock.now += IDLE_S + 1
    assert recorder.get("ws", 1).state == "stopped" and idle.stop_reason == "idle"
    busy = recorder.start("ws", 2, {})
    for _ in range(int(TOTAL_S // 10) + 1):
        busy.frames.append(Frame(b"x", clock.now, "step"))
        clock.now += 10
    assert recorder.get("ws", 2).stop_reason == "time_limit"
    clock.now += KEPT_S
    assert recorder.get("ws", 1) is None and recorder.get("ws", 2) is None
    assert recorder.get("other", 1) is None


# --- through the tool, over a scripted tab ------------------------------------------------------


class Tab:
    """The browser side of tab 7: a ``page`` it can capture, a ``chrome`` page the debugger
    cannot attach to, or ``closed``. The page has no element behind any ref."""

    def __init__(self) -> None:
        self.state = "page"

    def answer(self, op: str, args: dict[str, Any]) -> dict[str, Any]:
        if self.state != "page" and op in ("cdp", "screenshot"):
            why = "Cannot access a chrome:// URL" if self.state == "chrome" else "No tab with given id"
            raise BrowserError(f"Could not attach the debugger to tab 7: {why}", "cdp", "attach_failed")
        if op == "tab_info" and self.state == "closed":
            raise BrowserError("No tab with id 7 (it was closed or never existed)", code="tab_not_found")
        if op == "tab_info":
            return {"tabId": 7, "url": "chrome://version", "title": "About Version"}
        if op == "cdp":
            return {"result": {"result": {"value": {"w": 800, "h": 600, "dpr": 1, "url": "https://gif.test/"}}}}
        if op == "screenshot":
            return {"data": base64.b64encode(jpeg(800, 600, (0, 120, 0))).decode()}
        assert args.get("fn") == "observe", (op, args)
        return {"value": {"targetError": {"code": "ref_not_found", "message": "No element here"}}}


class Owners:
    """Which tabs workspace ``ws`` holds (tabs 7 and 8 until one leaves)."""

    def __init__(self) -> None:
        self.tabs = {7, 8}

    def verify_tab(self, workspace: str | None, tab: int) -> bool:
        return workspace == "ws" and tab in self.tabs


def gif_tool(tab: Tab, owners: Owners | None = None) -> tuple[Any, Recorder, ScriptedBrowser]:
    """The gif_creator handler over ``tab``, its recorder and the browser it asks."""
    browser = ScriptedBrowser(tab.answer)
    recorder = Recorder(PageChannel(browser), ContextBook())  # type: ignore[arg-type]
    handler = guarded(GifCreator(PageChannel(browser), recorder, ContextBook(), owners or Owners()))  # type: ignore[arg-type]
    return handler, recorder, browser


def said(result: ToolResult) -> str:
    return "\n".join(getattr(block, "text", "") for block in result.content)


async def test_a_start_without_a_first_frame_leaves_no_recording_and_keeps_the_last_one() -> None:
    tab = Tab()
    gif, recorder, _ = gif_tool(tab)
    earlier = recorder.start("ws", 7, {})
    earlier.frames = [Frame(jpeg(80, 60, (0, 0, 0)), trio.current_time(), "start")]
    earlier.stop("requested", trio.current_time())
    tab.state = "chrome"
    failed = await gif(tool_call("gif_creator", action="start_recording"))
    assert failed.kind == "tool_error" and "Could not attach the debugger" in said(failed)
    assert recorder.get("ws", 7) is earlier and earlier.state == "stopped"
    assert recorder.get("ws", 8) is None
    failed = await gif(tool_call("gif_creator", tabId=8, action="start_recording"))
    assert failed.kind == "tool_error" and recorder.get("ws", 8) is None
    tab.state = "page"
    started = await gif(tool_call("gif_creator", action="start_recording"))
    assert started.kind == "ok" and started.structured["frame_count"] == 1
    assert recorder.get("ws", 7) is not earlier


async def test_a_failed_export_leaves_the_recording_as_it_was_and_says_so() -> None:
    gif, recorder, _ = gif_tool(Tab())
    await gif(tool_call("gif_creator", action="start_recording"))
    failed = await gif(tool_call("gif_creator", action="export", ref="ref_9999"))
    assert failed.kind == "tool_error", said(failed)
    assert "No element here" in said(failed) and "Nothing was exported" in said(failed)
    assert ": recording, 1 frame(s)" in said(failed) and "stopped" not in said(failed)
    recording = recorder.get("ws", 7)
    assert recording is not None and recording.state == "recording" and recording.stop_reason == ""
    assert failed.structured["recording"]["state"] == "recording"
    status = await gif(tool_call("gif_creator", action="status"))
    assert status.structured["state"] == "recording" and status.structured["stop_reason"] is None


async def test_a_frame_the_tab_cannot_give_is_skipped_and_a_closed_tab_ends_the_recording() -> None:
    tab = Tab()
    gif, recorder, _ = gif_tool(tab)
    await gif(tool_call("gif_creator", action="start_recording"))
    done = ToolResult.text("done")
    tab.state = "chrome"
    await recorder.after_call(tool_call("navigate", url="chrome://version"), done)
    recording = recorder.get("ws", 7)
    assert recording is not None and recording.state == "recording" and recording.skipped == 1
    status = await gif(tool_call("gif_creator", action="status"))
    assert status.structured["frames_skipped"] == 1 and "1 frame(s) skipped" in said(status)
    tab.state = "closed"
    await recorder.after_call(tool_call("tab_control", action="close"), done)
    assert recording.state == "stopped" and recording.stop_reason == "tab_closed"
    assert len(recording.frames) == 1 and recording.skipped == 1
    exported = await gif(tool_call("gif_creator", action="export", download=True))
    assert exported.kind == "ok" and exported.structured["stop_reason"] == "tab_closed"
    assert exported.structured["auto_stopped"] is True


async def test_no_frame_is_taken_of_a_page_the_policy_closes_to_the_workspace() -> None:
    """A link the agent clicked may land after the click answered, on a site the policy
    closes to this workspace: the frame after the next call is not taken, and says why."""
    tab = Tab()
    browser = ScriptedBrowser(tab.answer)
    seeing = {"open": True}
    asked: list[tuple[str | None, int]] = []

    async def may_see(workspace: str | None, tab_id: int) -> bool:
        asked.append((workspace, tab_id))
        return seeing["open"]

    recorder = Recorder(PageChannel(browser), ContextBook(), may_see=may_see)  # type: ignore[arg-type]
    gif = guarded(GifCreator(PageChannel(browser), recorder, ContextBook(), Owners()))  # type: ignore[arg-type]
    await gif(tool_call("gif_creator", action="start_recording"))
    done = ToolResult.text("done")
    await recorder.after_call(tool_call("computer", action="wait", duration=1), done)
    seeing["open"] = False
    await recorder.after_call(tool_call("tab_control", action="focus"), done)
    recording = recorder.get("ws", 7)
    assert recording is not None and len(recording.frames) == 2 and recording.withheld == 1
    assert asked == [("ws", 7), ("ws", 7)]
    status = await gif(tool_call("gif_creator", action="status"))
    assert status.structured["frames_withheld"] == 1
    assert "1 frame(s) not taken: the tab showed a page the policy" in said(status)


async def test_options_are_the_known_ones_each_true_or_false() -> None:
    gif, recorder, _ = gif_tool(Tab())
    for options, wrong in (
        ({"showWatermark": "false"}, "must be true or false"),
        ({"showWatermrk": False}, "Unknown option(s) 'showWatermrk'"),
    ):
        refused = await gif(tool_call("gif_creator", action="start_recording", options=options))
        assert refused.kind == "tool_error" and wrong in said(refused), said(refused)
        assert recorder.get("ws", 7) is None  # nothing recorded
    started = await gif(tool_call("gif_creator", action="start_recording", options={"showWatermark": False}))
    assert started.kind == "ok"
    assert recorder.get("ws", 7).options["showWatermark"] is False


async def test_a_recording_whose_tab_left_is_stopped_exported_and_cleared_without_the_tab() -> None:
    """The engine lets status, stop, clear and an export to the caller through for a tab that
    left the workspace: the handler then asks the browser nothing (the tab may be another
    workspace's now), and the recording says why it stopped."""
    owners = Owners()
    gif, recorder, browser = gif_tool(Tab(), owners)
    await gif(tool_call("gif_creator", action="start_recording"))
    recording = recorder.get("ws", 7)
    assert recording is not None and recording.frames[0].url == "https://gif.test/"
    owners.tabs.discard(7)
    asked = len(browser.seen)
    status = await gif(tool_call("gif_creator", action="status"))
    assert status.kind == "ok", said(status)
    assert status.structured["state"] == "stopped" and status.structured["stop_reason"] == "tab_left"
    assert status.structured["auto_stopped"] is True and "stopped: tab_left" in said(status)
    exported = await gif(tool_call("gif_creator", action="export", download=True))
    assert exported.kind == "ok", said(exported)
    assert Image.open(io.BytesIO(exported.content[-1].data)).n_frames == 1
    assert exported.structured["stop_reason"] == "tab_left"  # it ended when the tab left
    cleared = await gif(tool_call("gif_creator", action="clear"))
    assert cleared.structured["cleared"] is True and recorder.get("ws", 7) is None
    missing = await gif(tool_call("gif_creator", action="status"))
    assert missing.kind == "tool_error" and "has left this workspace" in said(missing)
    assert len(browser.seen) == asked  # nothing of it reached the browser


def test_a_recording_names_the_pages_its_frames_show_once_each_in_order() -> None:
    recorder = Recorder(None, ContextBook(), clock=Clock())  # type: ignore[arg-type]
    recording = recorder.start("ws", 7, {})
    for url in ("https://a.test/1", "", "https://b.test/", "https://a.test/1"):
        recording.frames.append(Frame(b"x", 100.0, "step", url=url))
    assert recorder.pages("ws", 7) == ["https://a.test/1", "https://b.test/"]
    assert recorder.pages("other", 7) == [] and recorder.pages("ws", 8) == []


async def test_an_export_too_large_to_deliver_keeps_the_recording_and_a_smaller_one_works(
    monkeypatch,
) -> None:
    """A GIF over what its delivery carries is not sent to be refused on the way (which cost
    the recording before): the export says so, and what to ask for instead, and the
    recording goes on as it was, frames and all."""
    gif, recorder, browser = gif_tool(Tab())
    await gif(tool_call("gif_creator", action="start_recording"))
    done = ToolResult.text("done")
    for x in (100, 300, 500):
        await recorder.after_call(tool_call("computer", action="left_click", coordinate=[x, 90]), done)
    recording = recorder.get("ws", 7)
    assert recording is not None and len(recording.frames) == 4
    full, small = len(encode_gif(recording)), len(encode_gif(recording, max_width=200))
    assert small < full
    monkeypatch.setattr(gif_creator, "DOWNLOAD_LIMIT", (small + full) // 2)
    monkeypatch.setattr(gif_creator, "PLACE_LIMIT", (small + full) // 2)

    asked = len(browser.seen)
    placed = await gif(tool_call("gif_creator", action="export", ref="ref_1"))
    assert placed.kind == "tool_error" and "Nothing was exported" in said(placed), said(placed)
    assert len(browser.seen) == asked  # nothing was sent towards the page
    too_large = await gif(tool_call("gif_creator", action="export", download=True))
    assert too_large.kind == "tool_error", said(too_large)
    assert not [block for block in too_large.content if isinstance(block, ImageBlock)]
    assert "Nothing was exported" in said(too_large) and "left as it was" in said(too_large)
    assert too_large.structured["recording"]["state"] == "recording"
    assert too_large.structured["recording"]["frame_count"] == 4
    width = too_large.structured["suggested_max_width"]
    assert f'options {{"maxWidth": {width}}}' in said(too_large) and 100 <= width < 800
    assert too_large.structured["gif_bytes_estimate"] > gif_creator.DOWNLOAD_LIMIT
    assert recording.state == "recording" and recording.stop_reason == "" and len(recording.frames) == 4
    status = await gif(tool_call("gif_creator", action="status"))
    assert status.structured["state"] == "recording" and status.structured["frame_count"] == 4

    smaller = await gif(
        tool_call("gif_creator", action="export", download=True, options={"maxWidth": 200})
    )
    assert smaller.kind == "ok", said(smaller)
    exported = Image.open(io.BytesIO(smaller.content[-1].data))
    assert exported.n_frames == 4 and exported.width == 200
    assert smaller.structured["stop_reason"] == "exported"
    for wrong in ({"maxWidth": 20}, {"maxWidth": 300.5}, {"showWatermark": False}, {"maxWidth": True}):
        refused = await gif(tool_call("gif_creator", action="export", download=True, options=wrong))
        assert refused.kind == "tool_error" and 'options {"maxWidth": N} only' in said(refused)
