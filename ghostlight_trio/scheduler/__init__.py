"""Who may touch which browser resource, when: leases, fair queues, bounds and quarantine."""

from .errors import (
    Busy,
    LeaseOrderError,
    QueueDeadlineExceeded,
    ResourceQuarantined,
    SchedulerRefusal,
)
from .keys import (
    SERVICE_LOCAL,
    BrowserWide,
    ResourceKey,
    ServiceLocal,
    TabSurface,
    WorkspaceTopology,
    conflicts,
)
from .scheduler import Lease, LeaseRequest, Scheduler, SchedulerLimits

__all__ = [
    "SERVICE_LOCAL",
    "BrowserWide",
    "Busy",
    "Lease",
    "LeaseOrderError",
    "LeaseRequest",
    "QueueDeadlineExceeded",
    "ResourceKey",
    "ResourceQuarantined",
    "Scheduler",
    "SchedulerLimits",
    "SchedulerRefusal",
    "ServiceLocal",
    "TabSurface",
    "WorkspaceTopology",
    "conflicts",
]
