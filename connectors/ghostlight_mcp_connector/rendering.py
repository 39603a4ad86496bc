"""MCP JSON shapes that are identical in both revisions: content, tools, progress, corrections."""

from __future__ import annotations

import base64
import copy
from typing import Any

from ghostlight_trio.transport.bridge import ContentBlock, ImageBlock, Rejected, ToolDescriptor

from .correlation import ProgressUpdate
from .jsonrpc import is_request_id, notification


def content_json(blocks: list[ContentBlock]) -> list[dict[str, Any]]:
    rendered: list[dict[str, Any]] = []
    for block in blocks:
        if isinstance(block, ImageBlock):
            rendered.append(
                {
                    "type": "image",
                    "data": base64.b64encode(block.data).decode("ascii"),
                    "mimeType": block.mime_type,
                }
            )
        else:
            rendered.append({"type": "text", "text": block.text})
    return rendered


def tool_json(tool: ToolDescriptor) -> dict[str, Any]:
    """The common Tool object; schemas are deep-copied so callers may extend them.

    The display name is said once: a title that ``annotations.title`` already carries is not
    repeated at the top level, where the spec has clients take ``annotations.title`` first
    when there is none (every tool list entry costs the client's context)."""
    rendered: dict[str, Any] = {"name": tool.name}
    if tool.title and (tool.annotations or {}).get("title") != tool.title:
        rendered["title"] = tool.title
    if tool.description:
        rendered["description"] = tool.description
    rendered["inputSchema"] = copy.deepcopy(tool.input_schema)
    if tool.output_schema is not None:
        rendered["outputSchema"] = copy.deepcopy(tool.output_schema)
    if tool.annotations:
        rendered["annotations"] = copy.deepcopy(tool.annotations)
    return rendered


def joined_text(blocks: list[ContentBlock]) -> str:
    return "\n".join(b.text for b in blocks if not isinstance(b, ImageBlock))


def corrective_result(rejected: Rejected) -> dict[str, Any]:
    """A refusal the model can fix itself (for example a missing workspace): an isError result."""
    text = rejected.message
    if rejected.next_step:
        text = f"{text} Next step: {rejected.next_step}"
    return {"content": [{"type": "text", "text": text}], "isError": True}


def progress_token(params: dict[str, Any]) -> str | int | None:
    meta = params.get("_meta")
    if not isinstance(meta, dict):
        return None
    token = meta.get("progressToken")
    return token if is_request_id(token) else None


def progress_notification(update: ProgressUpdate) -> dict[str, Any]:
    """Request-scoped progress; never tagged with a subscription id."""
    params: dict[str, Any] = {
        "progressToken": update.call.progress_token,
        "progress": _number(update.progress.progress),
    }
    if update.progress.total is not None:
        params["total"] = _number(update.progress.total)
    if update.progress.message:
        params["message"] = update.progress.message
    return notification("notifications/progress", params)


def _number(value: float) -> float | int:
    return int(value) if value.is_integer() else value
