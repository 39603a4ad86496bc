"""Ghostlight: a protocol-neutral local service that lets MCP agents drive the user's browser."""

__version__ = "0.1.0"
