"""Whether an instance's managed browser is still running, said where it would be missed.

Stopping the service or uninstalling leaves the managed browser as it is (it is the user's to
close), but silently it would go on running, headless and unseen. The browser's own profile lock
(``SingletonLock``, checked against the live process's command line by
``managed.profile_in_use``) tells which process it is, without any record of ours to go stale.
"""

from __future__ import annotations

from ..browser import managed
from ..transport.endpoints import Endpoints


def browser_left_note(endpoints: Endpoints) -> str | None:
    """One line naming the managed browser still running and how to stop it, or None."""
    pid = managed.running_browser(endpoints)
    if pid is None:
        return None
    return (
        f"the managed browser of instance {endpoints.instance!r} is still running (pid {pid},"
        f" profile {managed.profile_dir(endpoints)}); stop it with `kill {pid}`"
    )


def say_browser_left(endpoints: Endpoints) -> None:
    """Print the note, when there is one."""
    note = browser_left_note(endpoints)
    if note is not None:
        print(f"Note: {note}.")
