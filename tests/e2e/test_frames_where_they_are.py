"""An embedded frame is judged by the page the browser committed in it, never by its ``src``:
a frame with no ``src`` filled by ``window.open(url, name)``, a ``src`` that redirects, and a
frame that navigated itself all show a never-touch site, and a click, a scroll, the drop end of
a drag and typing into them are refused before anything is sent (its server never hears of it).
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
import trio

from ghostlight_trio.governance.sources import PolicyFiles

from .conftest import (
    QuietHandler,
    Service,
    dialog_when_open,
    launched_for,
    loopback_server,
    more_tools,
    page_tools,
    text,
)
from .test_governance import _governed_service, _tab

pytestmark = pytest.mark.e2e

SHOP, BANK = "shop.test", "bank.test"
RESOLVES = f"--host-resolver-rules=MAP {SHOP} 127.0.0.1, MAP {BANK} 127.0.0.1"
FRAME_BOX = "iframe{position:absolute;left:0;top:0;width:400px;height:300px;border:0}"


class _Pages(QuietHandler):
    log: list[tuple[str, str]] = []

    def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
        host = (self.headers.get("Host") or "").split(":")[0]
        type(self).log.append((host, self.path))
        port = self.server.server_address[1]
        inner = f"http://{BANK}:{port}/inner"
        style = f"<style>body{{margin:0;height:3000px}} {FRAME_BOX}</style>"
        if self.path == "/opened":  # no src: window.open fills the named frame
            body = f"{style}<iframe name=slot></iframe><script>window.open('{inner}', 'slot')</script>"
        elif self.path == "/redirected":  # src on the shop's own host, answered by a redirect
            body = f"{style}<iframe src='/redirect'></iframe>"
        elif self.path == "/wandered":  # src on the shop's own host, which moves itself on
            body = f"{style}<iframe src='/hop'></iframe>"
        elif self.path == "/late":  # a frame of the bank filled a moment after the page loads
            body = (
                f"{style}<iframe name=slot></iframe><script>setTimeout(() => window.open("
                f"'http://{BANK}:{port}/alerting?account=4242', 'slot'), 1500)</script>"
            )
        elif self.path.startswith("/alerting"):
            body = "<script>alert('bank secret 4242: transfer approved')</script>"
        elif self.path == "/redirect":
            self.send_response(302)
            self.send_header("Location", inner)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        elif self.path == "/hop":
            body = f"<script>location.href = '{inner}'</script>"
        elif self.path == "/focused":  # the page puts the keyboard focus into the frame itself
            body = (
                f"{style}<iframe name=slot></iframe><script>window.open('{inner}', 'slot');"
                "setTimeout(() => frames[0].focus(), 300)</script>"
            )
        else:
            body = (
                "<style>body{margin:0;height:3000px} input{width:380px;height:280px}</style>"
                "<input id=box onmousedown=\"fetch('/pressed')\" onkeydown=\"fetch('/typed')\""
                " onwheel=\"fetch('/wheel')\"><script>box.focus(); fetch('/ready')</script>"
            )
        self.send_html(body.encode())


@pytest.fixture
def site() -> Iterator[tuple[int, list[tuple[str, str]]]]:
    log: list[tuple[str, str]] = []
    with loopback_server(type("Handler", (_Pages,), {"log": log})) as port:
        yield port, log


async def _on(service: Service, port: int, log: list[tuple[str, str]], path: str) -> tuple[str, int]:
    """A new workspace (so that denials in one do not pause another) on the shop's ``path``,
    once its frame has loaded the bank's page."""
    ws, tab = await _tab(service)
    landed = await service.call("navigate", ws, url=f"http://{SHOP}:{port}{path}", tabId=tab)
    assert landed.kind == "ok", text(landed)
    with trio.fail_after(10):
        while (BANK, "/ready") not in log:  # noqa: ASYNC110 - the frame's page has loaded
            await trio.sleep(0.05)
    return ws, tab


async def shop_page_listening(service: Service, port: int, path: str) -> tuple[str, int]:
    """A new workspace's tab on the shop's ``path``, with its network listing started (the
    first read_network_requests turns recording on)."""
    ws, tab = await _tab(service)
    landed = await service.call("navigate", ws, url=f"http://{SHOP}:{port}{path}", tabId=tab)
    assert landed.kind == "ok", text(landed)
    started = await service.call("read_network_requests", ws, tabId=tab)
    assert started.kind == "ok", text(started)
    return ws, tab


async def bank_never_touch(tmp_path, endpoints, nursery, *handler_sets) -> Service:
    """A governed service whose user put the bank on the never-touch list, all else open."""
    settings = tmp_path / "config.json"
    settings.write_text(json.dumps({"sacred_domains": [BANK]}))
    files = PolicyFiles(org=None, user=None, settings=settings)
    return await _governed_service(endpoints, nursery, files, *handler_sets)


def _refused(outcome, what: str) -> None:
    assert outcome.kind == "denied", (what, text(outcome))
    assert f"embedded frame of {BANK}" in text(outcome) and "never-touch" in text(outcome), what


async def test_input_reaches_no_frame_whose_committed_page_is_never_touch(tmp_path, endpoints, nursery, site):
    port, log = site
    service = await bank_never_touch(tmp_path, endpoints, nursery, page_tools)
    async with launched_for(service, RESOLVES):
        for path in ("/opened", "/redirected", "/wandered"):
            log.clear()
            ws, tab = await _on(service, port, log, path)
            click = await service.call("computer", ws, tabId=tab, action="left_click", coordinate=[200, 150])
            _refused(click, f"click {path}")
            scroll = await service.call(
                "computer", ws, tabId=tab, action="scroll", coordinate=[200, 150],
                scroll_direction="down", scroll_amount=2,
            )  # fmt: skip
            _refused(scroll, f"scroll {path}")

        log.clear()
        ws, tab = await _on(service, port, log, "/opened")
        drag = await service.call(
            "computer", ws, tabId=tab, action="left_click_drag",
            start_coordinate=[600, 400], coordinate=[200, 150],
        )  # fmt: skip
        _refused(drag, "the drop end of a drag")

        log.clear()
        ws, tab = await _on(service, port, log, "/focused")
        await trio.sleep(0.6)  # the page moves the focus into the frame
        typed = await service.call("computer", ws, tabId=tab, action="type", text="4242")
        _refused(typed, "typing")
        await trio.sleep(0.5)
        assert not [path for host, path in log if host == BANK and path not in ("/inner", "/ready")], log


async def test_a_frame_of_an_allowed_site_still_takes_input(tmp_path, endpoints, nursery, site):
    """The same pages with nothing of theirs on the never-touch list: the frame's page is
    looked up and the click goes on."""
    port, log = site
    settings = tmp_path / "config.json"
    settings.write_text(json.dumps({"sacred_domains": ["elsewhere.example"]}))
    files = PolicyFiles(org=None, user=None, settings=settings)
    service = await _governed_service(endpoints, nursery, files, page_tools)
    async with launched_for(service, RESOLVES):
        ws, tab = await _on(service, port, log, "/opened")
        for point in ([200, 150], [100, 100]):
            click = await service.call("computer", ws, tabId=tab, action="left_click", coordinate=point)
            assert click.kind == "ok", text(click)  # judged on the bank's page, and let through
        # Whether the press then reaches the frame is Chrome's own routing of input into a frame
        # of another site, which in a headless browser now and then goes astray: not asserted.


async def test_a_never_touch_frames_dialog_and_requests_keep_their_words(tmp_path, endpoints, nursery, site):
    """A frame of the never-touch site opens an alert and loads its page: the dialog is there to
    answer, but its words are withheld, and the network listing names no address of that site."""
    port, log = site
    service = await bank_never_touch(tmp_path, endpoints, nursery, page_tools, more_tools)
    async with launched_for(service, RESOLVES):
        ws, tab = await shop_page_listening(service, port, "/late")
        status = await dialog_when_open(service, ws, tab)
        assert "4242" not in text(status) and "4242" not in json.dumps(status.structured), text(status)
        assert f"embedded frame of {BANK}" in text(status)
        dismissed = await service.call("dialog", ws, tabId=tab, action="dismiss")
        assert dismissed.kind == "ok" and "4242" not in json.dumps(dismissed.structured), text(dismissed)
        listed = await service.call("read_network_requests", ws, tabId=tab)
        assert listed.kind == "ok", text(listed)
        assert "alerting" not in text(listed) and "4242" not in text(listed), text(listed)
        assert f"(withheld: a request of {BANK}" in text(listed), text(listed)
