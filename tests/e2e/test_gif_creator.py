"""gif_creator in real headless Chromium: frames follow the work on the recorded tab only, and
the export is a real animated GIF, returned or placed in the page. A page the debugger cannot
attach to (chrome://) never leaves a broken recording behind, and a closed tab ends one quietly,
leaving it to be exported still."""

from __future__ import annotations

import io
import logging
from typing import Any

import pytest
from PIL import Image

from ghostlight_trio.workspace.tab_ids import split_tab_id

from .conftest import PAGES, Service, launched_for, open_page, page_value, text
from .devtools import DEVTOOLS_FLAGS, in_extension_worker


async def _user_takes_tab_to(launched: Any, tab: int, url: str) -> None:
    """The user (not an agent, who may not go there) takes the tab to a browser page."""
    await in_extension_worker(
        launched.profile,
        f"chrome.tabs.update({split_tab_id(tab)[1]}, {{url: '{url}'}})"
        ".then(() => new Promise(r => setTimeout(r, 500)))",
    )

pytestmark = pytest.mark.e2e

PAGES.update(
    {
        "/gif": """<!doctype html><title>GIF page</title>
<style>body{margin:0} button{position:absolute;left:40px;top:40px;width:160px;height:50px}</style>
<button onclick="this.textContent='Clicked ' + (++window.n || (window.n = 1))">Click me</button>
<label style="position:absolute;top:200px">Keep <input id="keep" type="file"></label>""",
    }
)


def gif_of(outcome: Any) -> Image.Image:
    [block] = [b for b in outcome.content if getattr(b, "type", "") == "image"]
    assert block.mime_type == "image/gif"
    return Image.open(io.BytesIO(block.data))


async def test_a_recording_follows_the_work_on_its_tab_and_exports_a_gif(
    extended_service: Service, extended_browser: Any, web: str
) -> None:
    service = extended_service
    ws, tab = await open_page(service, f"{web}/gif")
    _, other = await open_page(service, f"{web}/gif", ws)
    started = await service.call("gif_creator", ws, tabId=tab, action="start_recording")
    assert started.kind == "ok", text(started)
    assert started.structured["frame_count"] == 1 and started.structured["storage"] == "memory_only"
    for _ in range(2):
        clicked = await service.call("computer", ws, tabId=tab, action="left_click", coordinate=[120, 65])
        assert clicked.kind == "ok", text(clicked)
    await service.call("computer", ws, tabId=other, action="left_click", coordinate=[120, 65])  # not recorded
    status = await service.call("gif_creator", ws, tabId=tab, action="status")
    assert status.structured["frame_count"] == 3 and status.structured["state"] == "recording"

    exported = await service.call("gif_creator", ws, tabId=tab, action="export", download=True)
    assert exported.kind == "ok", text(exported)
    gif = gif_of(exported)
    assert gif.format == "GIF" and gif.n_frames == 3 and gif.width <= 800
    assert exported.structured["state"] == "stopped" and exported.structured["stop_reason"] == "exported"
    assert exported.structured["gif_bytes"] == len(next(b for b in exported.content if getattr(b, "type", "") == "image").data)
    assert await page_value(service, ws, tab, "window.n") == 2

    found = await service.call("find", ws, tabId=tab, query="Keep")
    ref = found.structured["results"][0]["ref"]
    placed = await service.call("gif_creator", ws, tabId=tab, action="export", ref=ref, filename="work.gif")
    assert placed.kind == "ok", text(placed)
    assert await page_value(service, ws, tab, "[keep.files[0].name, keep.files[0].type]") == ["work.gif", "image/gif"]


async def test_misuse_is_refused_and_clear_forgets_the_frames(
    extended_service: Service, extended_browser: Any, web: str
) -> None:
    service = extended_service
    ws, tab = await open_page(service, f"{web}/gif")
    nothing = await service.call("gif_creator", ws, tabId=tab, action="export", download=True)
    assert nothing.kind == "tool_error" and "No recording on tab" in text(nothing)
    await service.call("gif_creator", ws, tabId=tab, action="start_recording")
    again = await service.call("gif_creator", ws, tabId=tab, action="start_recording")
    assert again.kind == "tool_error" and "already being recorded" in text(again)
    both = await service.call("gif_creator", ws, tabId=tab, action="export", download=True, ref="ref_1")
    assert both.kind == "tool_error" and "exactly one of download" in text(both)
    cleared = await service.call("gif_creator", ws, tabId=tab, action="clear")
    assert cleared.structured["cleared"] is True
    status = await service.call("gif_creator", ws, tabId=tab, action="status")
    assert status.kind == "tool_error"


async def test_a_chrome_page_refuses_a_start_without_leaving_a_recording_behind(
    extended_service: Service, web: str
) -> None:
    service = extended_service
    async with launched_for(service, *DEVTOOLS_FLAGS) as launched:
        await _refused_on_a_chrome_page(service, launched, web)


async def _refused_on_a_chrome_page(service: Service, launched: Any, web: str) -> None:
    ws, tab = await open_page(service, f"{web}/gif")
    moved = await service.call("navigate", ws, tabId=tab, url="chrome://version")
    assert moved.kind == "denied", text(moved)  # an agent may not go there
    await _user_takes_tab_to(launched, tab, "chrome://version")
    for _ in range(2):  # the second try is refused the same way, not as "already being recorded"
        refused = await service.call("gif_creator", ws, tabId=tab, action="start_recording")
        assert refused.kind == "denied", text(refused)
        assert "shows a chrome: page" in text(refused)
    status = await service.call("gif_creator", ws, tabId=tab, action="status")
    assert status.kind == "tool_error" and "No recording on tab" in text(status)
    back = await service.call("navigate", ws, tabId=tab, url=f"{web}/gif")
    assert back.kind == "ok", text(back)
    started = await service.call("gif_creator", ws, tabId=tab, action="start_recording")
    assert started.kind == "ok" and started.structured["frame_count"] == 1, text(started)


async def test_a_chrome_page_costs_a_frame_and_a_closed_tab_stops_the_recording_quietly(
    extended_service: Service, web: str, caplog: pytest.LogCaptureFixture
) -> None:
    service = extended_service
    async with launched_for(service, *DEVTOOLS_FLAGS) as launched:
        await _a_chrome_page_costs_a_frame(service, launched, web, caplog)


async def _a_chrome_page_costs_a_frame(
    service: Service, launched: Any, web: str, caplog: pytest.LogCaptureFixture
) -> None:
    ws, tab = await open_page(service, f"{web}/gif")
    started = await service.call("gif_creator", ws, tabId=tab, action="start_recording")
    assert started.kind == "ok", text(started)
    await _user_takes_tab_to(launched, tab, "chrome://version")
    focused = await service.call("tab_control", ws, tabId=tab, action="focus")  # then a frame
    assert focused.kind == "ok", text(focused)
    status = await service.call("gif_creator", ws, tabId=tab, action="status")
    assert status.structured["state"] == "recording", text(status)
    assert status.structured["frame_count"] == 1 and status.structured["frames_skipped"] == 1
    with caplog.at_level(logging.ERROR):
        closed = await service.call("tab_control", ws, tabId=tab, action="close")
    assert closed.kind == "ok", text(closed)
    assert not [r for r in caplog.records if "after-call observer failed" in r.getMessage()]
    # The recording outlives its tab: it can still be looked at, exported to the caller and
    # cleared, while nothing that would reach the tab is let through.
    status = await service.call("gif_creator", ws, tabId=tab, action="status")
    assert status.kind == "ok", text(status)
    assert status.structured["state"] == "stopped" and status.structured["auto_stopped"] is True
    assert status.structured["stop_reason"] in ("tab_closed", "tab_left"), text(status)
    exported = await service.call("gif_creator", ws, tabId=tab, action="export", download=True)
    assert exported.kind == "ok", text(exported)
    assert gif_of(exported).n_frames == 1
    restart = await service.call("gif_creator", ws, tabId=tab, action="start_recording")
    assert restart.kind == "denied" and "no longer in this workspace" in text(restart), text(restart)
    cleared = await service.call("gif_creator", ws, tabId=tab, action="clear")
    assert cleared.kind == "ok" and cleared.structured["cleared"] is True, text(cleared)
