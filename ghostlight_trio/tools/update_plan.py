"""``update_plan``: the agent states where it will go and how, before acting.

Service-local: it touches no browser, so it runs without a workspace or a browser lease. The
plan is kept per workspace (when one is given) so status views can show it, and goes with the
workspace (``forget_workspace``, told by the registry as each workspace goes).
"""

from __future__ import annotations

import attrs

from ..engine.contracts import ToolCall, ToolResult, WorkspaceId


@attrs.define
class PlanBook:
    """The latest plan per live workspace, so as many as the workspace registry's own bound
    (plus one for calls made without a workspace)."""

    plans: dict[WorkspaceId | None, tuple[tuple[str, ...], tuple[str, ...]]] = attrs.Factory(dict)

    def forget_workspace(self, workspace: WorkspaceId) -> None:
        """The workspace went (released or expired): its plan goes with it."""
        self.plans.pop(workspace, None)

    async def update_plan(self, call: ToolCall) -> ToolResult:
        domains = tuple(call.arguments["domains"])
        approach = tuple(call.arguments["approach"])
        self.plans[call.context.workspace_id] = (domains, approach)
        listed_domains = ", ".join(domains) if domains else "(none)"
        steps = "\n".join(f"{n}. {step}" for n, step in enumerate(approach, 1)) or "(no steps)"
        return ToolResult.text(
            f"Plan recorded.\nDomains: {listed_domains}\nApproach:\n{steps}"
        )
