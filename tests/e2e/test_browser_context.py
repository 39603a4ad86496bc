"""Real headless Chromium + the real extension + the real native host, driven through the engine."""

from __future__ import annotations

import os
import signal
from typing import Any

import pytest
import trio

from ghostlight_trio.browser.managed import ManagedBrowser

from .conftest import Service, launched_for, text, until
from .devtools import DEVTOOLS_FLAGS, in_extension_worker

pytestmark = pytest.mark.e2e


async def test_workspaces_create_navigate_list_and_never_see_each_other(
    service: Service, browser: ManagedBrowser, web: str
) -> None:
    created = await service.call("tabs_create_mcp")
    assert created.kind == "ok", text(created)
    ws_a = created.workspace_id
    assert ws_a is not None
    tab_a = created.structured["tabId"]
    assert tab_a >= 2**32  # composite: slot 1 and the native id
    assert text(created).startswith(f"Created tab {tab_a}.")

    landed = await service.call("navigate", ws_a, url=f"{web}/", tabId=tab_a)
    assert landed.kind == "ok", text(landed)
    assert landed.structured == {"tabId": tab_a, "url": f"{web}/", "title": "Ghostlight test page"}
    said = text(landed).splitlines()
    assert said[0] == (
        f"Navigated to {web}/. The tab now shows (its address and title, the page's own words):"
    )
    assert said[2] == f'{{"url": "{web}/", "title": "Ghostlight test page"}}', said

    second = await service.call("navigate", ws_a, url=f"{web}/second", tabId=tab_a)
    assert second.structured["title"] == "Second page"
    back = await service.call("navigate", ws_a, url="back", tabId=tab_a)
    assert back.kind == "ok", text(back)
    assert back.structured["url"] == f"{web}/"

    listed = await service.call("tabs_context_mcp", ws_a)
    assert listed.kind == "ok", text(listed)
    assert listed.structured["tabs"] == [
        {"tabId": tab_a, "title": "Ghostlight test page", "url": f"{web}/"}
    ]
    assert isinstance(listed.structured["mcpGroupId"], int)

    other = await service.call("tabs_context_mcp", createIfEmpty=True)
    assert other.kind == "ok", text(other)
    ws_b = other.workspace_id
    assert ws_b not in (None, ws_a)
    tabs_b = [tab["tabId"] for tab in other.structured["tabs"]]
    assert len(tabs_b) == 1 and tab_a not in tabs_b
    assert service.registry.owned_tabs(ws_a) == {tab_a}
    assert service.registry.owned_tabs(ws_b) == set(tabs_b)

    foreign = await service.call("navigate", ws_b, url=f"{web}/second", tabId=tab_a)
    assert foreign.kind == "denied"
    relisted = await service.call("tabs_context_mcp", ws_a)
    assert [tab["url"] for tab in relisted.structured["tabs"]] == [f"{web}/"]


async def test_killed_connector_fails_the_pending_call_truthfully_then_recovers(
    service: Service, browser: ManagedBrowser, web: str
) -> None:
    created = await service.call("tabs_create_mcp")
    ws, tab = created.workspace_id, created.structured["tabId"]
    outcomes = []

    async def slow_navigation() -> None:
        outcomes.append(await service.call("navigate", ws, url=f"{web}/slow", tabId=tab))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(slow_navigation)
        await trio.sleep(1.0)
        relay_pid = service.shore.relay_pid(1)
        assert relay_pid is not None
        os.kill(relay_pid, signal.SIGKILL)
    [pending] = outcomes
    assert pending.kind == "outcome_unknown"
    assert "disconnected before responding" in text(pending)

    # The extension reconnects through a fresh native host; later calls work again.
    await until(
        lambda: service.shore.connected_count and service.shore.relay_pid(1) != relay_pid,
        within=30,
    )
    fresh = await service.call("tabs_create_mcp", ws)
    assert fresh.kind == "ok", text(fresh)
    new_tab = fresh.structured["tabId"]
    assert {tab, new_tab} <= {t["tabId"] for t in fresh.structured["tabs"]}
    landed = await service.call("navigate", ws, url=f"{web}/second", tabId=new_tab)
    assert landed.kind == "ok", text(landed)
    assert landed.structured["title"] == "Second page"


async def test_a_navigation_still_waiting_for_its_server_is_reported_under_way(
    service: Service, browser: ManagedBrowser, web: str
) -> None:
    created = await service.call("tabs_create_mcp")
    ws, tab = created.workspace_id, created.structured["tabId"]
    await service.call("navigate", ws, url=f"{web}/", tabId=tab)
    waiting = await service.call("navigate", ws, url=f"{web}/unanswered", tabId=tab)
    # Sent and under way: never "did not start" or "the browser did not act on it".
    assert waiting.kind == "ok", text(waiting)
    assert text(waiting).startswith(f"The navigation to {web}/unanswered is under way")
    assert waiting.structured["pendingUrl"] == f"{web}/unanswered"
    assert waiting.structured["url"] == f"{web}/"

    with trio.fail_after(15):  # and it lands once the server answers
        while True:
            listed = await service.call("tabs_context_mcp", ws)
            if [t["url"] for t in listed.structured["tabs"]] == [f"{web}/unanswered"]:
                break
            await trio.sleep(0.2)


async def _groups(profile: Any) -> list[list[Any]]:
    """Every tab group as the browser has it: title, colour, how many tabs."""
    found = await in_extension_worker(
        profile,
        "chrome.tabGroups.query({}).then(gs => Promise.all(gs.map(async g =>"
        " [g.title, g.color, (await chrome.tabs.query({groupId: g.id})).length])))",
    )
    return sorted(found)


async def test_the_user_can_tell_workspaces_apart_and_see_which_have_ended(
    service: Service,
) -> None:
    """Two clients with the same name get groups with different titles and colours; a workspace
    that ends leaves its tab open in a group marked ended, in grey. (The browser is told it has
    a screen: a user agent without "HeadlessChrome".)"""
    service.registry.retire_listeners.append(service.shore.workspace_ended)
    screen = "--user-agent=Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36"
    async with launched_for(service, *DEVTOOLS_FLAGS, screen) as launched:
        first = await service.call("tabs_create_mcp")
        second = await service.call("tabs_create_mcp")
        assert first.kind == second.kind == "ok", (text(first), text(second))
        assert await _groups(launched.profile) == [
            ["Ghostlight · e2e", "blue", 1], ["Ghostlight · e2e 2", "red", 1]
        ]
        service.registry.release(first.workspace_id)
        with trio.fail_after(10):
            while ["Ghostlight · e2e (ended)", "grey", 1] not in await _groups(launched.profile):  # noqa: ASYNC110
                await trio.sleep(0.1)
        assert await _groups(launched.profile) == [
            ["Ghostlight · e2e (ended)", "grey", 1], ["Ghostlight · e2e 2", "red", 1]
        ]


async def _replace_native_host(service: Service) -> None:
    """Kill the browser's native host and wait until the browser attached through a fresh one."""
    relay_pid = service.shore.relay_pid(1)
    assert relay_pid is not None
    os.kill(relay_pid, signal.SIGKILL)
    await until(
        lambda: service.shore.connected_count and service.shore.relay_pid(1) != relay_pid,
        within=30,
    )


async def test_workspaces_the_service_no_longer_has_are_marked_ended_when_the_browser_attaches(
    service: Service,
) -> None:
    """A service that restarted never says its old workspaces ended: its welcome names the
    workspaces it has, and the browser ends the others. Here one workspace goes without the
    browser being told (no listener), then the browser's native host is killed, and the browser
    attaches again through a fresh one."""
    screen = "--user-agent=Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36"
    async with launched_for(service, *DEVTOOLS_FLAGS, screen) as launched:
        first = await service.call("tabs_create_mcp")
        second = await service.call("tabs_create_mcp")
        assert first.kind == second.kind == "ok", (text(first), text(second))
        service.registry.release(first.workspace_id)
        live_looking = [["Ghostlight · e2e", "blue", 1], ["Ghostlight · e2e 2", "red", 1]]
        assert await _groups(launched.profile) == live_looking
        await _replace_native_host(service)
        with trio.fail_after(10):
            while ["Ghostlight · e2e (ended)", "grey", 1] not in await _groups(launched.profile):  # noqa: ASYNC110
                await trio.sleep(0.1)
        assert await _groups(launched.profile) == [
            ["Ghostlight · e2e (ended)", "grey", 1], ["Ghostlight · e2e 2", "red", 1]
        ]
        still = await service.call("tabs_context_mcp", second.workspace_id)
        assert [t["tabId"] for t in still.structured["tabs"]] == [second.structured["tabId"]]


async def _stored(profile: Any, area: str) -> Any:
    return await in_extension_worker(profile, f"chrome.storage.{area}.get(null)")


async def test_the_browser_keeps_workspaces_under_browser_keys_never_their_handles(
    service: Service,
) -> None:
    """The extension files each workspace's tabs under the key its requests carry, in session
    storage that outlives its worker; the handle, its client's credential, never reaches the
    browser. Through a native host replaced mid-life the key stays the workspace's: its tab is
    still filed under it and still its own."""
    async with launched_for(service, *DEVTOOLS_FLAGS) as launched:
        first = await service.call("tabs_create_mcp")
        second = await service.call("tabs_create_mcp")
        assert first.kind == second.kind == "ok", (text(first), text(second))
        handles = [first.workspace_id, second.workspace_id]
        keys = [service.registry.browser_key(handle) for handle in handles]

        async def book() -> dict[str, Any]:
            with trio.fail_after(10):
                while True:
                    stored = (await _stored(launched.profile, "session")).get("ghostlight_topology")
                    if stored and set(keys) <= set(stored["workspaces"]):
                        return dict(stored["workspaces"])
                    await trio.sleep(0.1)

        # Each tab is answered only once its workspace, tab and group, is stored: read at once.
        stored = (await _stored(launched.profile, "session"))["ghostlight_topology"]["workspaces"]
        for key, made in zip(keys, (first, second), strict=True):
            assert stored[key]["tabIds"] == [made.structured["tabId"] % 2**32]
            assert isinstance(stored[key]["groupId"], int) and stored[key]["groupId"] >= 0

        filed = await book()
        assert filed[keys[0]]["tabIds"] == [first.structured["tabId"] % 2**32]
        assert filed[keys[1]]["tabIds"] == [second.structured["tabId"] % 2**32]
        everything = repr([await _stored(launched.profile, area) for area in ("session", "local")])
        assert not [handle for handle in handles if handle in everything]

        await _replace_native_host(service)
        still = await service.call("tabs_context_mcp", handles[0])
        assert [t["tabId"] for t in still.structured["tabs"]] == [first.structured["tabId"]]
        assert (await book())[keys[0]]["tabIds"] == [first.structured["tabId"] % 2**32]


async def test_in_a_browser_no_one_sees_an_ended_workspace_s_tabs_are_closed(
    service: Service,
) -> None:
    service.registry.retire_listeners.append(service.shore.workspace_ended)
    async with launched_for(service, *DEVTOOLS_FLAGS) as launched:
        first = await service.call("tabs_create_mcp")
        second = await service.call("tabs_create_mcp")
        assert first.kind == second.kind == "ok", (text(first), text(second))
        tabs_before = await in_extension_worker(launched.profile, "chrome.tabs.query({}).then(t => t.length)")
        service.registry.release(first.workspace_id)
        with trio.fail_after(10):
            while len(await _groups(launched.profile)) > 1:  # noqa: ASYNC110
                await trio.sleep(0.1)
        assert await _groups(launched.profile) == [["Ghostlight · e2e 2", "red", 1]]
        tabs_after = await in_extension_worker(launched.profile, "chrome.tabs.query({}).then(t => t.length)")
        assert tabs_after == tabs_before - 1


async def test_a_tab_the_user_moves_out_of_a_workspace_s_group_leaves_that_workspace(
    service: Service, web: str
) -> None:
    """The group a tab is shown in names the agent that can drive it: the user dragging an
    agent's tab out of its group takes it from that agent; dragging it into another agent's
    group hands it over at that agent's next listing."""
    async with launched_for(service, *DEVTOOLS_FLAGS) as launched:
        first = await service.call("tabs_create_mcp")
        second = await service.call("tabs_create_mcp")
        assert first.kind == second.kind == "ok", (text(first), text(second))
        ws_a, tab_a = first.workspace_id, first.structured["tabId"]
        ws_b, tab_b = second.workspace_id, second.structured["tabId"]
        native_a, native_b = tab_a % 2**32, tab_b % 2**32
        went = await service.call("navigate", ws_b, url=f"{web}/second", tabId=tab_b)
        assert went.kind == "ok", text(went)

        # The user drags B's tab into A's group (Chrome reports it as for a drag).
        await in_extension_worker(
            launched.profile,
            f"chrome.tabs.get({native_a}).then(t => chrome.tabs.group({{groupId: t.groupId,"
            f" tabIds: [{native_b}]}})).then(() => true)",
        )
        await until(lambda: not service.registry.verify_tab(ws_b, tab_b), within=10)
        denied = await service.call("navigate", ws_b, url=f"{web}/", tabId=tab_b)
        assert denied.kind == "denied", text(denied)
        listed = await service.call("tabs_context_mcp", ws_a)
        assert sorted(t["tabId"] for t in listed.structured["tabs"]) == sorted([tab_a, tab_b])
        assert service.registry.verify_tab(ws_a, tab_b)

        # The user drags A's first tab out of any group: A no longer drives it.
        await in_extension_worker(launched.profile, f"chrome.tabs.ungroup([{native_a}]).then(() => true)")
        await until(lambda: not service.registry.verify_tab(ws_a, tab_a), within=10)
        relisted = await service.call("tabs_context_mcp", ws_a)
        assert [t["tabId"] for t in relisted.structured["tabs"]] == [tab_b]


async def test_a_kept_profile_runs_the_extension_as_it_is_on_disk_now(
    service: Service, tmp_path: Any
) -> None:
    """Chrome keeps an extension's service worker in the profile and would go on running the
    old code after an upgrade that does not change the version: a managed browser started again
    on its kept profile runs the files as they are now."""
    import shutil

    from ghostlight_trio.browser import managed

    extension = tmp_path / "extension"
    shutil.copytree(managed.default_extension_dir(), extension)
    worker = extension / "service-worker.js"
    original = worker.read_text()
    for mark in (1, 2):
        worker.write_text(f"self.ghostlightMark = {mark};\n" + original)
        launched = await managed.launch(
            service.endpoints, headless=True, no_sandbox=True, extension_dir=extension,
            extra_args=list(DEVTOOLS_FLAGS),
        )
        try:
            await launched.wait_connected(lambda: service.shore.connected_count > 0, within=30)
            assert await in_extension_worker(launched.profile, "self.ghostlightMark") == mark
        finally:
            await launched.aclose()
        await until(lambda: service.shore.connected_count == 0, within=10)


async def test_back_and_forward_step_one_page_of_the_tabs_history_each(
    service: Service, browser: ManagedBrowser, web: str
) -> None:
    """Each step lands on the next page of the tab's own history, read back independently:
    not skipped past, as the toolbar's buttons may skip pages an agent opened."""
    created = await service.call("tabs_create_mcp")
    ws, tab = created.workspace_id, created.structured["tabId"]
    for page in ("/", "/second", "/"):
        assert (await service.call("navigate", ws, url=f"{web}{page}", tabId=tab)).kind == "ok"
    landed = []
    for step in ("back", "back", "forward", "forward"):
        moved = await service.call("navigate", ws, url=step, tabId=tab)
        assert moved.kind == "ok", (step, text(moved))
        info = await service.shore.request(ws, "tab_info", {"tabId": tab}, timeout=10)
        assert moved.structured["url"] == info["url"]
        landed.append(info["url"].removeprefix(web))
    assert landed == ["/second", "/", "/second", "/"]
    beyond = await service.call("navigate", ws, url="forward", tabId=tab)
    assert beyond.kind == "tool_error" and "no next page" in text(beyond)
