"""A workspace that goes takes its plan with it: the service keeps the plans of live workspaces
only, however many workspaces have made one in its life."""

from __future__ import annotations

import trio

from ghostlight_trio.service.app import build_service_parts
from ghostlight_trio.transport import bridge
from ghostlight_trio.transport.handshake import open_bridge

from .serving import start_service

PLAN: dict[str, bridge.JsonValue] = {"domains": ["example.test"], "approach": ["read", "act"]}


async def test_the_service_forgets_the_plan_of_a_released_workspace(
    nursery: trio.Nursery, endpoints
) -> None:
    running = await start_service(nursery, endpoints, build=build_service_parts)
    plans = running.parts.engine.handlers["update_plan"].__self__.plans
    client, _ = await open_bridge(endpoints)
    workspaces = []
    for n in range(3):
        await client.send(bridge.OpenWorkspace(sequence=10 * n + 1, client_label="planner"))
        opened = await client.receive()
        assert isinstance(opened, bridge.WorkspaceOpened)
        await client.send(bridge.Start(
            sequence=10 * n + 2, operation="update_plan", arguments=PLAN,
            workspace_id=opened.workspace_id,
            context=bridge.RequestContext(client_label="planner"),
        ))
        assert isinstance(await client.receive(), bridge.Started)
        outcome = await client.receive()
        assert isinstance(outcome, bridge.Outcome) and outcome.kind == "ok", outcome
        workspaces.append(opened.workspace_id)
    assert set(plans) == set(workspaces)

    for gone in workspaces[:2]:
        await client.send(bridge.ReleaseWorkspace(workspace_id=gone))
    await client.send(bridge.StatusRequest(sequence=100))  # answered after the releases
    await client.receive()
    assert set(plans) == {workspaces[2]}
