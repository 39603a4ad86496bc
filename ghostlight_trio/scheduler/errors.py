"""Why the scheduler refused or retired a request. Every one of them means nothing was dispatched."""

from __future__ import annotations


class SchedulerRefusal(Exception):
    """Work was not dispatched; ``message`` is written for the agent."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class Busy(SchedulerRefusal):
    """A queue bound (``scope``: resource, producer or global) is full."""

    def __init__(self, scope: str, message: str) -> None:
        super().__init__(message)
        self.scope = scope


class QueueDeadlineExceeded(SchedulerRefusal):
    """The request waited its whole queue budget without being granted."""


class ResourceQuarantined(SchedulerRefusal):
    """An earlier effect on the resource has an unknown outcome; only exact proof clears it."""


class LeaseOrderError(SchedulerRefusal):
    """A holder asked for a parent of a resource it already holds (no in-place upgrades)."""
