"""The recordings of ``record_actions``: one per workspace, in memory only.

A recording takes steps while it records; a stopped one is kept until it is cleared, a new one
starts, or its workspace goes (``forget_workspace``). It holds at most ``MAX_STEPS`` steps: past
that it stops by itself, so that an export never silently lacks the end of the flow.
"""

from __future__ import annotations

import secrets

import attrs

from ...engine.contracts import WorkspaceId
from .steps import RecordedStep

MAX_STEPS = 200


@attrs.define
class ActionRecording:
    recording_id: str
    steps: list[RecordedStep] = attrs.Factory(list)
    state: str = "recording"
    stop_reason: str = ""

    def stop(self, reason: str) -> None:
        if self.state == "recording":
            self.state, self.stop_reason = "stopped", reason


class ActionBook:
    """Every workspace's recording; ``recording`` is the one question asked of every call."""

    def __init__(self) -> None:
        self._recordings: dict[WorkspaceId | None, ActionRecording] = {}

    def recording(self, workspace: WorkspaceId | None) -> bool:
        found = self._recordings.get(workspace)
        return found is not None and found.state == "recording"

    def get(self, workspace: WorkspaceId | None) -> ActionRecording | None:
        return self._recordings.get(workspace)

    def start(self, workspace: WorkspaceId | None) -> ActionRecording:
        """A new, empty recording, replacing any earlier one of the workspace."""
        recording = ActionRecording(recording_id=f"steps_{secrets.token_hex(6)}")
        self._recordings[workspace] = recording
        return recording

    def add(self, workspace: WorkspaceId | None, step: RecordedStep) -> None:
        recording = self._recordings.get(workspace)
        if recording is None or recording.state != "recording":
            return
        recording.steps.append(step)
        if len(recording.steps) >= MAX_STEPS:
            recording.stop("step_limit")

    def clear(self, workspace: WorkspaceId | None) -> bool:
        return self._recordings.pop(workspace, None) is not None

    def forget_workspace(self, workspace: WorkspaceId | None) -> None:
        self._recordings.pop(workspace, None)
