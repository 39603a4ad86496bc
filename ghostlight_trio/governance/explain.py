"""Deterministic plain-language renderings: the capability directory and what a policy allows.

Shared by the ``explain`` tool and ``ghostlight policy explain``; the same state always renders
the same text, because a wrong or shifting sentence here is a trust bug.
"""

from __future__ import annotations

from collections.abc import Iterable

import attrs

from ..catalog.registry import ToolSpec
from ..engine.contracts import ToolCall, ToolHandler, ToolResult
from .directory import capability_rows
from .governor import Governor, PolicyState
from .manifest import CAPABILITIES, Grant, Manifest

CAPABILITY_MEANINGS = {
    "read": "look at pages and navigate (a GET commits nothing)",
    "action": "click, type and press keys (the page decides the effect)",
    "write": "fill form fields and upload files",
    "execute": "run arbitrary JavaScript (never implied by anything else)",
}


def _needs(needs: frozenset[str]) -> str:
    ordered = [cap for cap in CAPABILITIES if cap in needs]
    return "+".join(ordered) if ordered else "nothing"


def directory_lines(specs: Iterable[ToolSpec]) -> list[str]:
    lines = ["Capabilities:"]
    lines += [f"  {cap}: {meaning}" for cap, meaning in CAPABILITY_MEANINGS.items()]
    lines.append("Tools and what each action needs:")
    for spec in specs:
        rows = capability_rows(spec)
        if len(rows) == 1 and rows[0][0] is None:
            lines.append(f"  {spec.name}: {_needs(rows[0][1])}")
            continue
        parts = [f"{action or 'default'}={_needs(needs)}" for action, needs in rows]
        lines.append(f"  {spec.name}: " + ", ".join(parts))
    return lines


def _hosts(grant: Grant) -> str:
    allow = ", ".join(pattern.text for pattern in grant.allow) or "no hosts"
    if allow == "*":
        allow = "every host"
    deny = ", ".join(pattern.text for pattern in grant.deny)
    return f"{allow} except {deny}" if deny else allow


def manifest_lines(tier: str, manifest: Manifest, *, never_touch: bool = True) -> list[str]:
    """What one manifest allows; ``never_touch``: with its own never-touch list (a whole policy
    lists the union of every tier's and the settings' instead)."""
    mode = "enforced" if manifest.mode == "enforce" else "observed only (denials are recorded, not applied)"
    lines = [f"{tier.capitalize()} policy {manifest.label}, {mode}:"]
    if not manifest.grants:
        lines.append("  No grants: every action that needs a capability is denied.")
    for grant in manifest.grants:
        caps = _needs(grant.allowed)
        caps = "no capabilities" if caps == "nothing" else caps
        suffix = " (observe only)" if grant.mode == "observe" else ""
        lines.append(f"  Grant {grant.id!r} allows {caps} on {_hosts(grant)}{suffix}.")
    lines.append("  Anything no grant covers is denied; actions that need nothing are allowed.")
    if never_touch and manifest.never_touch:
        sites = ", ".join(pattern.text for pattern in manifest.never_touch)
        lines.append(f"  Never-touch sites (refused in every mode, whatever the grants): {sites}.")
    return lines


def policy_lines(state: PolicyState) -> list[str]:
    if state.all_open:
        lines = [
            "No policy is active (all-open): every action is allowed. Audit, never-touch sites,"
            " hold and the kill switch still apply."
        ]
    else:
        lines = ["Every tier below must allow a call (a deny in any tier stands)."]
        for tier, manifest in state.manifests:
            lines += manifest_lines(tier, manifest, never_touch=False)
    if state.never_touch:
        sites = ", ".join(pattern.text for pattern in state.never_touch)
        lines.append(f"Never-touch sites (refused in every mode): {sites}.")
    else:
        lines.append("No never-touch sites are configured.")
    lines.append(
        "Password-like fields in page reads are "
        + ("redacted." if state.redact_secrets else "shown (redaction is off).")
    )
    for problem in state.problems:
        lines.append(f"Problem (last good policy kept): {problem}")
    return lines


def explain_text(specs: Iterable[ToolSpec], state: PolicyState) -> str:
    return "\n".join(policy_lines(state) + [""] + directory_lines(specs))


def explain_handler(governor: Governor, specs: Iterable[ToolSpec]) -> ToolHandler:
    """The ``explain`` tool: no arguments, touches no browser. A request that carries its own
    restriction is told the policy its calls meet: the user's tiers and that restriction."""
    listed = list(specs)

    async def explain(call: ToolCall) -> ToolResult:
        state = governor.state
        raw = call.context.restriction
        if raw is None:
            return ToolResult.text(explain_text(listed, state))
        restriction = governor.restriction(raw)
        if restriction.tier is None:
            why = f" ({restriction.problem})" if restriction.problem else ""
            lead = (
                f"This request's restriction is not a valid manifest{why}: every call made with"
                " it is denied. Without it:"
            )
            return ToolResult.text(lead + "\n" + explain_text(listed, state))
        narrowed = attrs.evolve(
            state,
            tiers=(*state.tiers, ("restriction", restriction.tier)),
            never_touch=(*state.never_touch, *restriction.never_touch),
        )
        lead = "This request carries its own restriction, the last tier below; it only tightens."
        return ToolResult.text(lead + "\n" + explain_text(listed, narrowed))

    return explain
