"""The whole product as users run it: MCP clients -> real connector processes -> real service
process -> real native host -> real extension in headless Chromium."""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import AsyncIterator
from typing import Any

import pytest
import trio

from ghostlight_trio.browser import managed
from ghostlight_trio.browser.priority import BACKGROUND_NICE, autogroup
from ghostlight_trio.cli.background import ensure_service
from ghostlight_trio.cli.control import query_status, wait_for_browser
from ghostlight_trio.cli.mcp_client import (
    REVISION_2025_11_25,
    REVISION_2026_07_28,
    McpClient,
    McpError,
    result_text,
)
from ghostlight_trio.transport.endpoints import Endpoints


def _connector(env: dict[str, str], era: str = REVISION_2025_11_25, name: str = "e2e") -> Any:
    return McpClient.spawn(
        [sys.executable, "-m", "ghostlight_mcp_connector"], env=env, era=era, client_name=name
    )


@pytest.fixture
async def stack(endpoints: Endpoints, instance_env: dict[str, str]) -> AsyncIterator[dict[str, Any]]:
    """A real service process and a managed browser connected to it."""
    stack: dict[str, Any] = {"env": instance_env, "endpoints": endpoints}
    stack["service"] = await ensure_service(endpoints, "--keep-warm")
    browser = stack["browser"] = await managed.launch(endpoints, headless=True)
    try:
        await wait_for_browser(endpoints, within=30, launched=browser)
        yield stack
    finally:
        await browser.aclose()
        # The service a test restarted is the one to stop, not the first one.
        process = stack["service"]
        if process is not None and process.poll() is None:
            process.terminate()
            process.wait(timeout=15)


async def test_the_managed_browser_yields_the_cpu_to_everything_else(stack) -> None:
    """A session of its own, so its own scheduling group, at background priority, and its
    processes at a background nice value: a busy browser cannot starve the service, the
    connectors or the user's programs (see ``browser.priority``)."""
    pid = stack["browser"].pid
    assert os.getsid(pid) == pid != os.getsid(0)
    ours, browsers = autogroup("self"), autogroup(pid)
    if browsers is not None:  # its own group, even when ours is the kernel's default one
        assert ours is None or browsers[0] != ours[0]
        assert browsers[1] == BACKGROUND_NICE
    if os.geteuid() != 0:  # run as root, Chromium sets its threads' priorities itself
        assert os.getpriority(os.PRIO_PGRP, pid) >= BACKGROUND_NICE


async def _create_and_navigate(client: McpClient, url: str, workspace: dict[str, Any]) -> int:
    arguments: dict[str, Any] = dict(workspace)
    created = await client.call_tool("tabs_create_mcp", arguments)
    assert not created.get("isError"), created
    structured = created["structuredContent"]
    if client.era == REVISION_2026_07_28:
        workspace["workspaceId"] = structured["workspaceId"]
    tab_id = structured["tabId"]
    navigated = await client.call_tool("navigate", {"url": url, "tabId": tab_id, **workspace})
    assert not navigated.get("isError"), navigated
    assert navigated["structuredContent"]["title"] == "Ghostlight test page"
    return tab_id


async def test_two_clients_of_both_eras_stay_in_their_own_workspaces(stack, web) -> None:
    env = stack["env"]
    async with await _connector(env, REVISION_2025_11_25, "alpha") as alpha, await _connector(
        env, REVISION_2026_07_28, "beta"
    ) as beta:
        alpha_ws: dict[str, Any] = {}
        beta_ws: dict[str, Any] = {}
        alpha_tab = await _create_and_navigate(alpha, f"{web}/", alpha_ws)
        beta_tab = await _create_and_navigate(beta, f"{web}/", beta_ws)
        assert alpha_tab != beta_tab

        alpha_view = await alpha.call_tool("tabs_context_mcp", {})
        beta_view = await beta.call_tool("tabs_context_mcp", beta_ws)
        assert [t["tabId"] for t in alpha_view["structuredContent"]["tabs"]] == [alpha_tab]
        assert [t["tabId"] for t in beta_view["structuredContent"]["tabs"]] == [beta_tab]

        # A foreign id and a guessed one get the same denial (modulo the id itself).
        foreign = await alpha.call_tool("navigate", {"url": f"{web}/second", "tabId": beta_tab})
        guessed = await alpha.call_tool("navigate", {"url": f"{web}/second", "tabId": 987654321})
        assert foreign.get("isError") and guessed.get("isError")
        assert result_text(foreign).replace(str(beta_tab), "N") == result_text(guessed).replace(
            "987654321", "N"
        )
        # The foreign tab was not touched.
        again = await beta.call_tool("tabs_context_mcp", beta_ws)
        assert again["structuredContent"]["tabs"][0]["title"] == "Ghostlight test page"

        # 2026-07-28: a stateful call without a handle is corrected, never borrowed.
        missing = await beta.call_tool("navigate", {"url": f"{web}/", "tabId": beta_tab})
        assert missing.get("isError"), missing
        assert "tabs_context_mcp" in result_text(missing)


async def test_killing_the_browser_mid_call_is_truthful_and_a_new_browser_recovers(
    stack, web
) -> None:
    env, endpoints = stack["env"], stack["endpoints"]
    async with await _connector(env) as client:
        tab = await _create_and_navigate(client, f"{web}/", {})
        results: list[Any] = []

        async def slow_navigation() -> None:
            try:
                results.append(await client.call_tool("navigate", {"url": f"{web}/slow", "tabId": tab}))
            except McpError as exc:
                results.append(exc)

        async with trio.open_nursery() as nursery:
            nursery.start_soon(slow_navigation)
            await trio.sleep(1.5)
            stack["browser"].process.send_signal(signal.SIGKILL)
        outcome = results[0]
        # Never a success: either an outcome-unknown error or a truthful tool error.
        if isinstance(outcome, McpError):
            assert "outcome" in str(outcome.error).lower() or "unknown" in str(outcome.error).lower()
        else:
            assert outcome.get("isError"), outcome

        replacement = await managed.launch(endpoints, headless=True)
        try:
            await wait_for_browser(endpoints, within=30)
            created = await client.call_tool("tabs_create_mcp", {})
            assert not created.get("isError"), created
        finally:
            await replacement.aclose()


async def test_a_service_restart_is_survived_by_the_relay(stack, web) -> None:
    env, endpoints = stack["env"], stack["endpoints"]
    before = await query_status(endpoints)
    service = stack["service"]
    assert service is not None
    service.send_signal(signal.SIGTERM)
    service.wait(timeout=30)
    stack["service"] = await ensure_service(endpoints, "--keep-warm")
    # Chrome keeps its native port: the same browser (id and generation) reattaches by itself.
    report = await wait_for_browser(endpoints, within=30)
    assert stack["browser"].process.returncode is None
    assert [(b.browser_id, b.generation) for b in report.browsers] == [
        (b.browser_id, b.generation) for b in before.browsers
    ]
    async with await _connector(env) as client:
        await _create_and_navigate(client, f"{web}/", {})
