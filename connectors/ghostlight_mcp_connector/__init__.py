"""The MCP stdio shore of Ghostlight: JSON-RPC framing, two dated MCP revisions, one bridge client."""

__version__ = "0.1.0"
