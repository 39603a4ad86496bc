"""Script an agent's page runs cannot reach a never-touch site: the tab's own requests there
are blocked by the browser (a fetch, an image, a background form), while the page's own site
answers as before, and the network listing reports the blocked request without its address."""

from __future__ import annotations

import pytest
import trio

from .conftest import launched_for, page_tools, text
from .test_frames_where_they_are import (  # noqa: F401 - site: the fixture
    BANK,
    RESOLVES,
    bank_never_touch,
    shop_page_listening,
    site,
)

pytestmark = pytest.mark.e2e

REACH = (
    "Promise.all(["
    "fetch('http://{bank}:{port}/secret?from=fetch', {{mode: 'no-cors'}}).then(() => 'bank fetched', () => 'bank refused'),"
    "new Promise(ok => {{ const i = new Image(); i.onload = i.onerror = () => ok('image tried');"
    " i.src = 'http://{bank}:{port}/secret?from=image'; }}),"
    "fetch('/opened').then(r => 'shop ' + r.status, () => 'shop refused'),"
    "]).then(all => all.join(', '))"
)


async def test_page_script_cannot_reach_a_never_touch_site(tmp_path, endpoints, nursery, site):  # noqa: F811
    port, log = site
    service = await bank_never_touch(tmp_path, endpoints, nursery, page_tools)
    async with launched_for(service, RESOLVES):
        ws, tab = await shop_page_listening(service, port, "/home")
        ran = await service.call(
            "javascript_tool", ws, tabId=tab, action="javascript_exec",
            text=REACH.format(bank=BANK, port=port),
        )  # fmt: skip
        assert ran.kind == "ok", text(ran)
        assert "bank refused" in text(ran) and "shop 200" in text(ran), text(ran)
        await trio.sleep(0.5)
        assert not [path for host, path in log if host == BANK], log
        listed = await service.call("read_network_requests", ws, tabId=tab)
        assert "secret" not in text(listed), text(listed)
        assert f"(withheld: a request of {BANK}" in text(listed), text(listed)
        assert "BLOCKED" in text(listed).upper(), text(listed)
