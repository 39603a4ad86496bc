"""GIF recordings share their byte bound fairly and go with their workspace."""

from __future__ import annotations

import pytest

from ghostlight_trio.engine.contracts import ToolResult
from ghostlight_trio.tools.gif_creator import recorder as gif_recorder
from ghostlight_trio.tools.gif_creator.recorder import Frame, Recorder, Recording
from ghostlight_trio.tools.shared.channel import PageChannel
from ghostlight_trio.tools.shared.screenshots import ContextBook

from .fakes import ScriptedBrowser, tool_call
from .test_gif_recording import Clock, Tab

UNIT = 1_000_000
"""Bytes of one prepared frame: more than a captured frame of the scripted tab."""


def recorder_over_a_tab(clock: Clock) -> Recorder:
    return Recorder(PageChannel(ScriptedBrowser(Tab().answer)), ContextBook(), clock=clock)  # type: ignore[arg-type]


def prepared(recorder: Recorder, clock: Clock, workspace: str, tab: int, units: int) -> Recording:
    """A recording started now (then the clock moves on) holding ``units`` prepared frames."""
    recording = recorder.start(workspace, tab, {})
    recording.frames = [Frame(b"x" * UNIT, clock.now, "start") for _ in range(units)]
    clock.now += 1
    return recording


async def next_frame_on_tab_7(recorder: Recorder) -> None:
    """A successful call on tab 7 of workspace ``ws``: the recording there gets one frame."""
    await recorder.after_call(
        tool_call("navigate", url="https://example.test/"), ToolResult.text("ok")
    )


async def test_over_the_bound_the_workspace_holding_the_most_loses_its_oldest(monkeypatch) -> None:
    monkeypatch.setattr(gif_recorder, "ALL_BYTES", 3 * UNIT)
    clock = Clock()
    recorder = recorder_over_a_tab(clock)
    quiet = prepared(recorder, clock, "quiet", 7, 1)  # the oldest of all
    prepared(recorder, clock, "ws", 5, 1)
    loud = prepared(recorder, clock, "ws", 7, 1)
    await next_frame_on_tab_7(recorder)  # over the bound: "ws" holds the most
    assert len(loud.frames) == 2 and recorder.get("ws", 7) is loud
    assert recorder.get("ws", 5) is None
    assert recorder.get("quiet", 7) is quiet and len(quiet.frames) == 1


async def test_the_recording_being_added_to_stays_and_the_next_largest_loses(monkeypatch) -> None:
    monkeypatch.setattr(gif_recorder, "ALL_BYTES", 5 * UNIT)
    clock = Clock()
    recorder = recorder_over_a_tab(clock)
    small = prepared(recorder, clock, "small", 1, 1)
    prepared(recorder, clock, "big", 1, 1)
    newer = prepared(recorder, clock, "big", 2, 1)
    loud = prepared(recorder, clock, "ws", 7, 2)
    await next_frame_on_tab_7(recorder)  # "ws" holds the most, but only the one added to
    assert recorder.get("ws", 7) is loud and len(loud.frames) == 3
    assert recorder.get("big", 1) is None and recorder.get("big", 2) is newer
    assert recorder.get("small", 1) is small


async def test_forget_workspace_drops_every_recording_of_it_and_nothing_else() -> None:
    clock = Clock()
    recorder = recorder_over_a_tab(clock)
    for tab in (1, 2):
        prepared(recorder, clock, "ws", tab, 1)
    other = prepared(recorder, clock, "other", 1, 1)
    recorder.forget_workspace("ws")
    recorder.forget_workspace("never-seen")
    assert recorder.get("ws", 1) is None and recorder.get("ws", 2) is None
    assert recorder.get("other", 1) is other
    # A call on a forgotten recording's tab adds nothing and brings nothing back.
    await next_frame_on_tab_7(recorder)
    assert recorder.get("ws", 7) is None


@pytest.mark.parametrize("units", [1, 2])
async def test_within_the_bound_nothing_goes(monkeypatch, units: int) -> None:
    monkeypatch.setattr(gif_recorder, "ALL_BYTES", 10 * UNIT)
    clock = Clock()
    recorder = recorder_over_a_tab(clock)
    others = [prepared(recorder, clock, name, 1, units) for name in ("a", "b")]
    loud = prepared(recorder, clock, "ws", 7, units)
    await next_frame_on_tab_7(recorder)
    assert [recorder.get(name, 1) for name in ("a", "b")] == others
    assert len(loud.frames) == units + 1


def test_as_a_retire_listener_a_released_workspace_takes_its_recordings_along() -> None:
    """How the service wires it: ``workspaces.retire_listeners.append(recorder.forget_workspace)``."""
    from ghostlight_trio.workspace import WorkspaceRegistry

    registry = WorkspaceRegistry(clock=lambda: 0.0)
    clock = Clock()
    recorder = recorder_over_a_tab(clock)
    registry.retire_listeners.append(recorder.forget_workspace)
    gone, _ = registry.open(None, "a")
    stays, _ = registry.open(None, "b")
    prepared(recorder, clock, gone, 7, 1)
    kept = prepared(recorder, clock, stays, 7, 1)
    registry.release(gone)
    assert recorder.get(gone, 7) is None and recorder.get(stays, 7) is kept
