"""What the engine tells the agent, worded once. Never a claim that an effect did not happen
unless nothing was dispatched."""

from __future__ import annotations

from ..untrusted.excerpt import excerpt

STILL_SETTLING = (
    "The operation is still settling inside Ghostlight. Its effect may have completed; do not"
    " retry automatically. Inspect the browser before deciding what to do next."
)
UNSETTLED = (
    "The operation did not settle within its time bound. Its effect may have completed; do not"
    " retry automatically. Inspect the browser before deciding what to do next."
)
CANCELLED_BEFORE_START = "Cancelled before it started; nothing ran."
CANCELLED_AFTER_DISPATCH = (
    "Cancelled. An effect that had already been dispatched was allowed to finish; inspect the"
    " browser to see what took effect."
)
WORKSPACE_NEXT_STEP = "Call tabs_context_mcp (or tabs_create_mcp) first and pass its workspaceId"
WORKSPACE_REQUIRED = "This tool needs a workspaceId."
UNKNOWN_WORKSPACE = "Unknown or expired workspaceId."
TOO_MUCH_ACTIVE_WORK = (
    "Ghostlight is busy: this connection already has {limit} calls in flight; nothing was"
    " started. Retry after some of them finish."
)
WORKSPACE_SHARE_BUSY = (
    "Ghostlight is busy: this connection already uses {limit} workspaces, its share, and each"
    " has a call in flight; nothing was started. Retry once one of those calls finishes, or"
    " keep working in a workspace you already have (pass its workspaceId)."
)


def unfit_values(tool: str, field: str, problem: str) -> str:
    """A call whose arguments (or restriction) hold values JSON cannot: ``problem`` says which
    and where (``jsonshape.json_problem``)."""
    what = "arguments" if field == "arguments" else "restriction"
    return (
        f"Invalid {what} for {tool}: {problem}; nothing ran. They must be JSON: text, whole"
        " numbers within ±(2^53 − 1), finite numbers, true, false, null, and lists and objects"
        " (with text keys) of those, nested at most 256 levels."
    )


def unknown_tool(name: str) -> str:
    return f"Unknown tool {excerpt(name)!r}; list the tools to see what is available."


def unknown_step_tool(name: str) -> str:
    return f"Unknown tool {excerpt(name)!r} in this step; nothing ran for it."


def nested_composition(name: str) -> str:
    return f"{name} cannot run as a step of another composition; nothing ran for it."


def not_started_in_time(operation: str, seconds: float) -> str:
    return (
        f"{operation} did not start within {seconds:g} s (it was still waiting for the browser"
        " resource); nothing ran. It is safe to retry."
    )


def tab_id_not_whole(tab_id: object) -> str:
    return (
        f"tabId must be a whole number, a tab id as tabs_context_mcp lists them; got {tab_id!r}."
    )


def tab_not_in_workspace(tab_id: object) -> str:
    return (
        f"Tab {tab_number(tab_id)} is not in this workspace (a closed tab leaves it). Use"
        " tabs_context_mcp to list your tabs."
    )


def tab_left_workspace(tab_id: object) -> str:
    return (
        f"Tab {tab_number(tab_id)} is no longer in this workspace: it was closed, or moved out of"
        " the workspace's tab group. Nothing was done on it. Use tabs_context_mcp to list your"
        " tabs."
    )


def tab_number(tab_id: object) -> str:
    """A tab id as the agent's listings show it: JSON may carry ``12`` as ``12.0``, and an
    echo of ``12.0`` reads like another tab."""
    if isinstance(tab_id, float) and tab_id.is_integer():
        return str(int(tab_id))
    return str(tab_id)


def internal_failure(operation: str) -> str:
    return (
        f"{operation} failed inside Ghostlight before anything was dispatched; see the service log."
    )


def result_not_sendable(kind: str, *, too_large: bool) -> str:
    why = (
        "it is larger than the connection carries (ask for less, e.g. a smaller max_chars)"
        if too_large
        else "it held a value the connection cannot carry (see the service log)"
    )
    return (
        f"The call ended ({kind}), but its result could not be sent back: {why}. Whatever the"
        " call did, it did; check the current state (for example with read_page or"
        " tabs_context_mcp) before repeating it."
    )


def quarantined_now(what: str) -> str:
    return (
        f"{what[:1].upper()}{what[1:]} is now quarantined: nothing more is sent to it until the"
        " browser answers that action or the tab is closed (tab_control, action close); time"
        " alone does not free it. To go on meanwhile, open a new tab with tabs_create_mcp."
    )
