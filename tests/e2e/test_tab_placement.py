"""Where a new workspace's tab goes, in the real browser: the window the user used last, also
when the user opened that window after the extension last looked at the windows (it keeps
them between tabs, lib/window-views.js); a workspace that has a group stays in its window."""

from __future__ import annotations

import pytest

from ghostlight_trio.workspace.tab_ids import split_tab_id

from .conftest import launched_for
from .devtools import DEVTOOLS_FLAGS, in_extension_worker
from .test_governance import _tab
from .test_privileged_pages import _open_service

pytestmark = pytest.mark.e2e


async def _window_of(profile, tab: int) -> int:
    chrome_tab = split_tab_id(tab)[1]
    return int(
        await in_extension_worker(profile, f"chrome.tabs.get({chrome_tab}).then(t => t.windowId)")
    )


async def test_a_window_the_user_opens_gets_the_next_workspaces_tab(endpoints, nursery):
    service = await _open_service(endpoints, nursery)
    async with launched_for(service, *DEVTOOLS_FLAGS) as launched:
        first_ws, first = await _tab(service)
        _, second = await _tab(service)  # placed from what the extension kept
        window = await _window_of(launched.profile, first)
        assert await _window_of(launched.profile, second) == window

        # The user opens a window and works in it.
        opened = int(await in_extension_worker(
            launched.profile,
            "chrome.windows.create({focused: true, url: 'about:blank'}).then(w => w.id)",
        ))  # fmt: skip
        assert opened != window
        _, third = await _tab(service)
        assert await _window_of(launched.profile, third) == opened

        # A workspace with a group keeps to its group's window.
        again = await service.call("tabs_create_mcp", first_ws)
        assert again.kind == "ok"
        assert await _window_of(launched.profile, again.structured["tabId"]) == window
