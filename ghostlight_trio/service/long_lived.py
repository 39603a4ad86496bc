"""Take the service's startup state out of the cyclic garbage collector's walks.

Everything built before the service serves (imported modules, the catalog and its compiled
schemas, governance) lives as long as the process. A full collection walks all of it, and a
service under load then stalled its event loop, with every caller waiting on it, for tens of
milliseconds each time. Frozen, that state is skipped: a full collection walks only what calls
created since, and cycles among those are still collected.
"""

from __future__ import annotations

import gc


def set_aside_startup_state() -> None:
    """Collect what startup left behind, then freeze the rest (the whole process's objects:
    only the service process's own entry point calls this)."""
    gc.collect()
    gc.freeze()
