"""``record_actions``: record the workspace's state-changing calls as steps, then export them.

``start`` begins a recording of the caller's workspace (replacing an earlier one); each
state-changing call on its tabs then leaves a step (``hook``); ``stop`` ends it, ``status``
lists the steps, ``clear`` forgets them, ``export`` writes them as a ``script`` (``format:
"script"``, the default) or a Playwright test (``format: "playwright"``). Nothing reaches a page:
the tool answers from what the service holds, in memory only.
"""

from __future__ import annotations

import json
from typing import Any

import attrs

from ...engine.contracts import ToolCall, ToolResult, WorkspaceId
from ..shared.provenance import wrap_page_text
from .book import ActionBook, ActionRecording
from .playwright_export import playwright_of, secret_env
from .script_export import SCRIPT_STEPS, placeholder, script_of, secrets_of

ORIGIN = "recorded-pages"
"""What the fence around recorded names says of where they come from (several pages)."""


@attrs.frozen
class RecordActions:
    _book: ActionBook

    async def __call__(self, call: ToolCall) -> ToolResult:
        action = str(call.arguments["action"])
        ws = call.context.workspace_id
        if action == "start":
            return _summary(ws, self._book.start(ws), "Recording: each state-changing call on this workspace's"
                            " tabs is kept as a step. Stop or export when done.")  # fmt: skip
        if action == "clear":
            cleared = self._book.clear(ws)
            return ToolResult.text(
                "Recording cleared." if cleared else "No recording to clear.",
                structured={"cleared": cleared},
            )
        recording = self._book.get(ws)
        if recording is None:
            return ToolResult.error("No recording in this workspace; start one with action start.")
        if action == "stop":
            recording.stop("requested")
            return _summary(ws, recording, f"Recording stopped with {len(recording.steps)} step(s).")
        if action == "status":
            return _summary(ws, recording, f"{len(recording.steps)} step(s) recorded.")
        if not recording.steps:
            return ToolResult.error("The recording has no steps yet; nothing was exported.")
        if call.arguments.get("format") == "playwright":
            return _playwright(ws, recording)
        return _script(ws, recording)


def _script(ws: WorkspaceId | None, recording: ActionRecording) -> ToolResult:
    steps, warnings = script_of(recording.steps)
    secrets = secrets_of(recording.steps)
    parts = [steps[at : at + SCRIPT_STEPS] for at in range(0, len(steps), SCRIPT_STEPS)] or [[]]
    how = "Replay it with the script tool ({\"steps\": ...}, tabId of the tab to replay in)"
    if len(parts) > 1:
        how += f", in {len(parts)} parts of at most {SCRIPT_STEPS} steps"
    if secrets:
        how += ", after replacing " + ", ".join(placeholder(name) for name in secrets)
    body = json.dumps({"steps": steps}, indent=1, ensure_ascii=False)
    text = f"{how}. Names come from the recorded pages:\n" + wrap_page_text(body, ws, ORIGIN)
    structured = {"format": "script", "steps": steps, "secrets": secrets, "warnings": warnings}
    return ToolResult.text(_with_warnings(text, warnings), structured=structured)


def _playwright(ws: WorkspaceId | None, recording: ActionRecording) -> ToolResult:
    source, warnings = playwright_of(recording.steps)
    secrets = secrets_of(recording.steps)
    how = "A Playwright Test file (TypeScript)"
    if secrets:
        how += "; set " + ", ".join(secret_env(name) for name in secrets) + " before running it"
    structured = {"format": "playwright", "file": source, "secrets": secrets, "warnings": warnings}
    return ToolResult.text(_with_warnings(f"{how}:\n{wrap_page_text(source, ws, ORIGIN)}", warnings), structured=structured)


def _with_warnings(text: str, warnings: list[str]) -> str:
    return text if not warnings else text + "\n" + "\n".join(warnings)


def _summary(ws: WorkspaceId | None, recording: ActionRecording, lead: str) -> ToolResult:
    facts: dict[str, Any] = {
        "recording_id": recording.recording_id,
        "state": recording.state,
        "storage": "memory_only",
        "step_count": len(recording.steps),
        "steps": [step.summary() for step in recording.steps],
    }
    if recording.stop_reason:
        facts["stop_reason"] = recording.stop_reason
    said = "; ".join(f"{n}. {_said(s.summary())}" for n, s in enumerate(recording.steps, 1))
    text = f"{lead} [{recording.recording_id}: {recording.state}]" + (f"\n{wrap_page_text(said, ws, ORIGIN)}" if said else "")
    return ToolResult.text(text, structured=facts)


def _said(summary: dict[str, Any]) -> str:
    locator = summary.get("locator", {})
    what = locator.get("name") or locator.get("label") or locator.get("text") or locator.get("css") or ""
    return str(summary["kind"]) + (f" {json.dumps(what, ensure_ascii=False)}" if what else "")
