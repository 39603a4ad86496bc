"""A site's service worker registered from one agent's tab never serves, watches or steers
another workspace's tab on that site: every agent tab's requests go to the network, past any
service worker, and no worker controls its page."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import trio

from ghostlight_trio.governance.sources import PolicyFiles

from .conftest import QuietHandler, launched_for, loopback_server, page_tools, text
from .test_governance import _governed_service, _tab

pytestmark = pytest.mark.e2e

WORKER = b"""
self.addEventListener('install', (e) => self.skipWaiting());
self.addEventListener('activate', (e) => e.waitUntil(clients.claim()));
self.addEventListener('fetch', (e) => {
  if (e.request.url.includes('/page')) {
    e.respondWith(new Response('<title>served by the worker</title><p>fake</p>',
      {headers: {'content-type': 'text/html'}}));
  }
});
self.addEventListener('message', async (e) => {
  const all = await clients.matchAll({type: 'window'});
  for (const c of all) { if (c.url.includes('/page') && c.navigate) c.navigate('/steered'); }
});
"""


class _Site(QuietHandler):
    log: list[str] = []

    def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
        type(self).log.append(self.path)
        if self.path.startswith("/sw.js"):
            self.send_response(200)
            self.send_header("Content-Type", "text/javascript")
            self.send_header("Content-Length", str(len(WORKER)))
            self.end_headers()
            self.wfile.write(WORKER)
            return
        if self.path.startswith("/page"):
            self.send_html(b"<title>the real page</title><p>real</p>")
            return
        self.send_html(b"<title>home</title><p>home</p>")


@pytest.fixture
def site() -> Iterator[tuple[int, list[str]]]:
    log: list[str] = []
    with loopback_server(type("Handler", (_Site,), {"log": log})) as port:
        yield port, log


async def _title(service, ws: str, tab: int) -> str:
    ran = await service.call(
        "javascript_tool", ws, tabId=tab, action="javascript_exec",
        text="document.title + ' | controlled: ' + !!navigator.serviceWorker.controller",
    )  # fmt: skip
    assert ran.kind == "ok", text(ran)
    return text(ran)


async def test_a_worker_one_agent_registers_never_serves_another_workspaces_tab(endpoints, nursery, site):
    port, log = site
    files = PolicyFiles(org=None, user=None, settings=None)
    service = await _governed_service(endpoints, nursery, files, page_tools)
    home = f"http://127.0.0.1:{port}"
    async with launched_for(service):
        mine, my_tab = await _tab(service)
        theirs, their_tab = await _tab(service)
        assert (await service.call("navigate", mine, url=f"{home}/", tabId=my_tab)).kind == "ok"
        registered = await service.call(
            "javascript_tool", mine, tabId=my_tab, action="javascript_exec",
            text="navigator.serviceWorker.register('/sw.js').then(r => new Promise(ok => {"
            " const w = r.installing || r.waiting || r.active;"
            " if (w.state === 'activated') ok('active');"
            " w.addEventListener('statechange', () => w.state === 'activated' && ok('active')); }))",
        )  # fmt: skip
        assert registered.kind == "ok", text(registered)

        # The other workspace opens a page of the same site, inside the worker's scope.
        opened = await service.call("navigate", theirs, url=f"{home}/page", tabId=their_tab)
        assert opened.kind == "ok", text(opened)
        seen = await _title(service, theirs, their_tab)
        assert "the real page" in seen and "controlled: false" in seen, seen
        assert "/page" in log  # the network answered, not the worker

        # The worker is asked (from the first agent's page) to steer every page it controls.
        await service.call(
            "javascript_tool", mine, tabId=my_tab, action="javascript_exec",
            text="navigator.serviceWorker.ready.then(r => r.active.postMessage('go')).then(() => 1)",
        )  # fmt: skip
        await trio.sleep(1)
        assert "/steered" not in log
        seen = await _title(service, theirs, their_tab)
        assert "the real page" in seen, seen
