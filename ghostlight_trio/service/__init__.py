"""The ghostlight service: instance lock, owner-only bridge server, lifecycle and assembly."""

from .lock import ServiceAlreadyRunning
from .runner import RunningService, run_service

AlreadyRunning = ServiceAlreadyRunning

__all__ = ["AlreadyRunning", "RunningService", "ServiceAlreadyRunning", "run_service"]
