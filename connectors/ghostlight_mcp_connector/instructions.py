"""The server instructions an MCP client shows its model: the workflow and the recovery rule."""

from __future__ import annotations

INSTRUCTIONS = (
    "Ghostlight drives the user's own Chromium, inside an isolated Ghostlight tab group."
    " Get a tab first: call tabs_context_mcp with createIfEmpty:true (or tabs_create_mcp),"
    " then pass that numeric tabId to every page tool (navigate, read_page, find, act_on, ...)."
    " Denials look like 'Denied (D-...)'; call explain for the reason."
    "\n\n"
    "If a call fails with 'Transport closed', stop: reconnect or restart Ghostlight through your"
    " MCP client; do not start the connector by hand. Before retrying an effectful call, inspect"
    " the browser state (tabs_context_mcp, read_page), because the earlier call may have run."
)

INSTRUCTIONS_2026_SUFFIX = (
    "\n\nWorkspaces: tabs_context_mcp and tabs_create_mcp return a workspaceId; pass it as"
    " workspaceId to every later tab tool."
)
