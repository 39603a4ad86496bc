"""What keeps the demo from starting, said before anything starts: another demo running, or
the user's hold or kill switch on for the demo instance.

Two demos at once would share one profile, and Chromium's answer to that is exit code 21 and
nothing more; a switch that is on refuses every call, and the demo would end with a bare
refusal. Each gets a sentence that names it and what to do.
"""

from __future__ import annotations

import fcntl
import os

from ..files.safe import open_private
from ..governance import texts
from ..governance.switches import Switches
from ..transport.endpoints import Endpoints
from .arguments import instance_flag
from .switch_status import saved

LOCK_NAME = "demo.lock"


class DemoLock:
    """One demo per instance at a time: an exclusive lock the kernel drops with its holder."""

    def __init__(self, fd: int) -> None:
        self._fd: int | None = fd

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def take_demo_lock(endpoints: Endpoints) -> DemoLock | str:
    """The lock, or why it cannot be had (another demo's pid in the words)."""
    endpoints.ensure_private_dirs()
    fd = open_private(endpoints.runtime_dir / LOCK_NAME, os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = os.pread(fd, 32, 0).decode(errors="replace").strip()
        os.close(fd)
        who = f" (pid {holder})" if holder.isdigit() else ""
        return (
            f"another `ghostlight demo` is running for instance {endpoints.instance!r}{who};"
            " let it finish (or press Ctrl-C there), then run this one"
        )
    except BaseException:
        os.close(fd)
        raise
    os.ftruncate(fd, 0)
    os.pwrite(fd, str(os.getpid()).encode(), 0)
    return DemoLock(fd)


def switch_words(endpoints: Endpoints, switches: Switches) -> str | None:
    """The switch that is on and how to lift it, or None when none is."""
    if not switches.names:
        return None
    which = "the kill switch" if switches.panicked else "a hold"
    return (
        f"{which} is on for instance {endpoints.instance!r}, so every agent call is refused;"
        f" lift it with `ghostlight resume{instance_flag(endpoints)}` and run the demo again"
    )


def switch_on(endpoints: Endpoints) -> str | None:
    """The saved switch that would refuse the demo's calls, in words, or None."""
    return switch_words(endpoints, saved(endpoints).switches)


_PANICKED_MARK = os.path.commonprefix([texts.PANICKED, texts.PANICKED_AFTER_DISPATCH])
_HELD_MARK = os.path.commonprefix([texts.HELD, texts.HOLD_AFTER_DISPATCH])
"""What every refusal for that switch begins with."""


def refused_by_switch(endpoints: Endpoints, text: str) -> str | None:
    """The words for a call refused because a switch went on during the demo, or None."""
    if _PANICKED_MARK in text:
        return switch_words(endpoints, Switches(panicked=True))
    if _HELD_MARK in text:
        return switch_words(endpoints, Switches(held=True))
    return None
