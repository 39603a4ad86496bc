"""A representative session on the managed headless browser, for the egress test to trace.

``tests/egress/test_stays_local.py`` runs this file under ``strace -f``: navigate, read, find,
click, a screenshot, typing into a field, a GIF recorded and exported (returned, and placed in
a file input), and a file link followed to a download. Its name keeps it out of the suite's own
collection (pytest collects ``test_*.py``), so it runs there only, where what the browser
reaches is watched.
"""

from __future__ import annotations

from typing import Any

import attrs
import pytest
import trio

from .conftest import PAGES, Service, open_page, page_value, text

pytestmark = pytest.mark.e2e

SETTLE_SECONDS = 3.0
"""How long the browser is left alone after typing and at the end, before it is stopped: the
work a page sets off in the browser (the spell checker starts on a field typed into and left
idle) gets the time to reach out if it would."""

PAGES.update(
    {
        "/session": """<!doctype html><title>Session page</title>
<style>body{margin:0;font:16px sans-serif} button{position:absolute;left:40px;top:40px;
width:160px;height:50px} label{position:absolute;display:block;left:40px}</style>
<h1 style="position:absolute;top:100px;left:40px">Quarterly notes</h1>
<button onclick="this.textContent='Clicked ' + (++window.n || (window.n = 1))">Click me</button>
<label style="top:180px">Note <input id="note" type="text"></label>
<label style="top:240px">Keep <input id="keep" type="file"></label>
<a style="position:absolute;top:300px;left:40px" href="/report.bin">Report</a>""",
    }
)


@attrs.frozen
class OnTab:
    """Calls on one tab of one workspace, each of which must succeed."""

    service: Service
    ws: str
    tab: int

    async def do(self, tool: str, **arguments: Any) -> Any:
        done = await self.service.call(tool, self.ws, tabId=self.tab, **arguments)
        assert done.kind == "ok", f"{tool}: {text(done)}"
        return done

    async def click(self, query: str) -> None:
        """A left click on what ``find`` names best for ``query``."""
        found = await self.do("find", query=query)
        await self.do("computer", action="left_click", ref=found.structured["results"][0]["ref"])

    async def value(self, expression: str) -> Any:
        return await page_value(self.service, self.ws, self.tab, expression)


async def test_navigate_read_click_type_record_and_download(
    extended_service: Service, extended_browser: Any, web: str
) -> None:
    on = OnTab(extended_service, *await open_page(extended_service, f"{web}/session"))
    await on.do("read_page")
    assert "Quarterly notes" in text(await on.do("get_page_text"))
    await on.do("computer", action="screenshot")
    await on.click("Click me")
    assert await on.value("window.n") == 1

    await on.click("Note")
    await on.do("computer", action="type", text="Teh quick brwon fox")
    await trio.sleep(SETTLE_SECONDS)

    await on.do("gif_creator", action="start_recording")
    await on.do("computer", action="left_click", coordinate=[120, 65])
    exported = await on.do("gif_creator", action="export", download=True)
    assert any(getattr(block, "mime_type", "") == "image/gif" for block in exported.content)
    keep = (await on.do("find", query="Keep")).structured["results"][0]["ref"]
    await on.do("gif_creator", action="export", ref=keep, filename="work.gif")
    assert await on.value("keep.files[0].name") == "work.gif"

    followed = await on.do("navigate", url=f"{web}/report.bin")
    assert followed.structured["noPage"] is True, text(followed)
    saved = extended_service.endpoints.data_dir / "downloads" / "report.bin"
    with trio.fail_after(10):
        while not saved.exists():  # noqa: ASYNC110 - the browser writes it
            await trio.sleep(0.1)
    await trio.sleep(SETTLE_SECONDS)
