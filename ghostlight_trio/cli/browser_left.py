"""Whether an instance's managed browser is still running, said where it would be missed.

Uninstalling leaves the managed browser as it is (it is the user's to close), and so does
stopping the service with a windowed one, but silently it would go on running unseen. A
headless one has no window to close and nothing left to serve once the service stops, so
``service stop`` stops it (``stop_headless_left``). The browser's own profile lock
(``SingletonLock``, checked against the live process's command line by
``managed.profile_in_use``) tells which process it is, without any record of ours to go stale.
"""

from __future__ import annotations

from ..browser import managed, processes
from ..transport.endpoints import Endpoints
from .arguments import instance_flag


def browser_left_note(endpoints: Endpoints) -> str | None:
    """One line naming the managed browser still running and how to stop it, or None."""
    pid = managed.running_browser(endpoints)
    if pid is None:
        return None
    return (
        f"the managed browser of instance {endpoints.instance!r} is still running (pid {pid},"
        f" profile {managed.profile_dir(endpoints)}); stop it with `ghostlight browser"
        f" stop{instance_flag(endpoints)}` or `kill {pid}`"
    )


def say_browser_left(endpoints: Endpoints) -> None:
    """Print the note, when there is one."""
    note = browser_left_note(endpoints)
    if note is not None:
        print(f"Note: {note}.")


async def stop_headless_left(endpoints: Endpoints) -> None:
    """After the service stopped: stop a headless managed browser (it would be orphaned: no
    window, nothing to serve), and say so; name a windowed one, which is the user's to close."""
    browser = processes.find_running(endpoints)
    if browser is None:
        return
    if not browser.headless:
        say_browser_left(endpoints)
        return
    left = await processes.stop(browser)
    if left:
        pids = ", ".join(str(proc.pid) for proc in left)
        print(f"Note: the headless managed browser (pid {browser.pid}) did not stop: pid {pids} still run.")
        return
    print(
        f"Stopped the headless managed browser of instance {endpoints.instance!r} (was pid"
        f" {browser.pid}): without the service nothing could use it."
    )
