"""What the browser endpoint tells whoever says hello there is of no use on the bridge.

Any process of the user can connect to the browser socket and send a hello as the native host
does. The browser wire names workspaces by browser keys; no string a browser-wire peer is sent
names a workspace on the bridge, where a workspace handle is the bearer credential of its client.
"""

from __future__ import annotations

import json
from typing import Any

import trio
from browser.fake_extension import FakeExtension  # tests/ is on sys.path (rootdir packages)

from ghostlight_trio.service.app import build_service_parts
from ghostlight_trio.transport import bridge
from ghostlight_trio.transport.handshake import open_bridge

from .serving import start_service


def _strings(value: Any) -> list[str]:
    """Every string in a decoded frame, keys included."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for key, item in value.items() for s in [key, *_strings(item)]]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    return []


async def _the_user_s_browser(peer: FakeExtension, seen: list[dict[str, Any]]) -> None:
    """Answers the context tools as the extension would, one new tab per ``tabs_create``."""
    next_tab = 5
    while True:
        frame = await peer.receive()
        seen.append(frame)
        if frame.get("type") != "request":
            continue
        if frame["op"] == "tabs_create":
            tab = {"tabId": next_tab, "title": "", "url": "about:blank"}
            next_tab += 1
            await peer.reply(frame, {**tab, "groupId": 1, "tabs": [tab]})
        else:
            await peer.reply(frame, {"groupId": None, "tabs": []})


async def test_a_fabricated_hello_is_told_nothing_that_opens_a_workspace(endpoints, nursery):
    """Two clients (one holding an opened workspace, one with a minted handle, as a 2026-07-28
    client has) own tabs; a local process then says hello on the browser socket. Its welcome
    (and whatever the browser endpoint sends it next, such as a workspace's end) holds no
    handle, and every string in them, presented as a ``workspaceId`` on the bridge, is refused
    as an unknown workspace: no call runs, no other client's tab is read, and asking to
    reattach one mints a fresh workspace."""
    await start_service(nursery, endpoints, build=build_service_parts)
    browser, _ = await FakeExtension.attach(endpoints.browser_socket, "the-user-s-browser")
    to_browser: list[dict[str, Any]] = []
    nursery.start_soon(_the_user_s_browser, browser, to_browser)

    victim, _ = await open_bridge(endpoints)
    await victim.send(bridge.OpenWorkspace(sequence=1, client_label="victim"))
    opened = await victim.receive()
    assert isinstance(opened, bridge.WorkspaceOpened)
    handles, tabs = [opened.workspace_id], []
    for sequence, workspace in ((2, opened.workspace_id), (3, None)):
        await victim.send(
            bridge.Start(
                sequence=sequence,
                operation="tabs_create_mcp",
                arguments={},
                workspace_id=workspace,
                context=bridge.RequestContext(client_label="victim"),
            )
        )
        assert isinstance(await victim.receive(), bridge.Started)
        created = await victim.receive()
        assert isinstance(created, bridge.Outcome) and created.kind == "ok", created
        assert created.workspace_id is not None and created.structured is not None
        if workspace is None:
            handles.append(created.workspace_id)
        tabs.append(created.structured["tabId"])
    assert len(set(handles)) == 2 and len(set(tabs)) == 2

    hostile, welcome = await FakeExtension.attach(
        endpoints.browser_socket, "a-fabricated-browser", generation="made-up"
    )
    assert len(welcome["liveWorkspaces"]) == 2
    await victim.send(bridge.ReleaseWorkspace(workspace_id=opened.workspace_id))
    ended = await hostile.receive()
    assert ended["type"] == "workspace_ended"
    told = [welcome, ended, *to_browser]
    for handle in handles:
        assert all(handle not in json.dumps(frame) for frame in told)

    presented = sorted(set(_strings(told)))
    attacker, _ = await open_bridge(endpoints)
    sequence = 0
    for text in presented:
        for operation, arguments in (
            ("tabs_context_mcp", {}),
            ("get_page_text", {"tabId": tabs[1]}),
            ("navigate", {"tabId": tabs[1], "url": "https://example.test/"}),
        ):
            sequence += 1
            await attacker.send(
                bridge.Start(sequence=sequence, operation=operation, arguments=arguments, workspace_id=text)
            )
            refused = await attacker.receive()
            assert isinstance(refused, bridge.Rejected), (text, operation, refused)
            assert refused.code == "unknown_workspace"
        sequence += 1
        await attacker.send(bridge.OpenWorkspace(sequence=sequence, reattach=text))
        fresh = await attacker.receive()
        assert isinstance(fresh, bridge.WorkspaceOpened) and not fresh.reattached
        assert fresh.workspace_id not in handles
    # Nothing the attacker sent reached a browser: every request there was the victim's.
    await trio.sleep(0.1)
    assert [frame["op"] for frame in to_browser if frame["type"] == "request"] == ["tabs_create"] * 2
    nursery.cancel_scope.cancel()
