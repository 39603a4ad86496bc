"""upload_image in real headless Chromium: a screenshot the agent took goes into a file input
or is dropped on a drop zone, and the page's own code reads the bytes it got."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import PAGES, Service, open_page, page_value, text

pytestmark = pytest.mark.e2e

PAGES.update(
    {
        "/image-drop": """<!doctype html><title>Drop page</title>
<style>body{margin:0} #zone{position:absolute;left:0;top:0;width:300px;height:200px;background:#cde}
#plain{position:absolute;left:0;top:300px;width:300px;height:100px}</style>
<div id="zone">Drop here</div><div id="plain">Not a drop target</div>
<label>Picture <input id="pic" type="file" accept="image/*"></label>
<script>
window.got = null;
const zone = document.getElementById('zone');
zone.addEventListener('dragover', (e) => e.preventDefault());
zone.addEventListener('drop', async (e) => {
  e.preventDefault();
  const f = e.dataTransfer.files[0];
  const head = new Uint8Array(await f.slice(0, 2).arrayBuffer());
  window.got = [f.name, f.type, f.size, head[0], head[1]];
});
</script>""",
    }
)


async def screenshot(service: Service, ws: str, tab: int) -> tuple[str, int]:
    shot = await service.call("computer", ws, tabId=tab, action="screenshot")
    assert shot.kind == "ok", text(shot)
    image_id = shot.structured["imageId"]
    assert f"[imageId: {image_id}]" in text(shot)
    image = next(block for block in shot.content if getattr(block, "type", "") == "image")
    return image_id, len(image.data)


async def test_a_screenshot_goes_into_a_file_input_and_onto_a_drop_zone(
    extended_service: Service, extended_browser: Any, web: str
) -> None:
    service = extended_service
    ws, tab = await open_page(service, f"{web}/image-drop")
    image_id, size = await screenshot(service, ws, tab)
    found = await service.call("find", ws, tabId=tab, query="Picture")
    ref = found.structured["results"][0]["ref"]

    into = await service.call("upload_image", ws, tabId=tab, imageId=image_id, ref=ref, filename="shot.jpg")
    assert into.kind == "ok", text(into)
    read = "[pic.files[0].name, pic.files[0].type, pic.files[0].size]"
    assert await page_value(service, ws, tab, read) == ["shot.jpg", "image/jpeg", size]

    dropped = await service.call("upload_image", ws, tabId=tab, imageId=image_id, coordinate=[100, 100])
    assert dropped.kind == "ok", text(dropped)
    assert "the page claimed the drop" in text(dropped)
    assert await page_value(service, ws, tab, "window.got") == ["image.jpg", "image/jpeg", size, 0xFF, 0xD8]

    missed = await service.call("upload_image", ws, tabId=tab, imageId=image_id, coordinate=[100, 350])
    assert "the page did not claim it" in text(missed)


async def test_only_this_workspaces_own_screenshots_go_and_bad_places_are_refused(
    extended_service: Service, extended_browser: Any, web: str
) -> None:
    service = extended_service
    ws, tab = await open_page(service, f"{web}/image-drop")
    other_ws, other_tab = await open_page(service, f"{web}/image-drop")
    theirs, _ = await screenshot(service, other_ws, other_tab)
    outcome = await service.call("upload_image", ws, tabId=tab, imageId=theirs, coordinate=[100, 100])
    assert outcome.kind == "tool_error" and "No screenshot" in text(outcome)
    mine, _ = await screenshot(service, ws, tab)
    for bad in (["a", 1], [1], [True, 2]):
        outcome = await service.call("upload_image", ws, tabId=tab, imageId=mine, coordinate=bad)
        assert outcome.kind == "tool_error" and "coordinate must be [x, y]" in text(outcome)
    huge = await service.call("upload_image", ws, tabId=tab, imageId=mine, coordinate=[1e308, 5])
    assert huge.kind == "tool_error" and "outside the tab's latest screenshot" in text(huge), text(huge)
    both = await service.call("upload_image", ws, tabId=tab, imageId=mine, coordinate=[1, 1], ref="ref_1")
    assert both.kind == "tool_error" and "exactly one of ref" in text(both)
    assert await page_value(service, ws, tab, "window.got") is None
