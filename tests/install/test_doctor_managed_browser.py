"""``ghostlight doctor`` with only the managed browser: a running ``ghostlight browser launch``
of the instance has the native host in its own profile, so no host for the user's own browsers
is a warning, not a broken link."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from ghostlight_trio.browser import managed
from ghostlight_trio.cli.doctor_checks import manifests
from ghostlight_trio.install.places import Place
from ghostlight_trio.transport.endpoints import Endpoints

from .helpers import EXT_ID


@pytest.fixture
def managed_profile(endpoints: Endpoints) -> Path:
    """The instance's managed-browser profile, with its native host registered in it."""
    return managed.prepare_profile(endpoints)


@pytest.fixture
def holder(managed_profile: Path) -> Iterator[int]:
    """A live process holding the profile as Chromium does (``SingletonLock`` -> host-pid, and
    ``--user-data-dir`` on its command line): the managed browser, as doctor can see it."""
    script = "import sys; print('up', flush=True); sys.stdin.read()"
    process = subprocess.Popen(
        [sys.executable, "-c", script, f"--user-data-dir={managed_profile}"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    assert process.stdout is not None
    assert process.stdout.readline() == b"up\n"  # it runs: its command line is in /proc now
    os.symlink(f"{socket.gethostname()}-{process.pid}", managed_profile / "SingletonLock")
    try:
        yield process.pid
    finally:
        assert process.stdin is not None
        process.stdin.close()
        process.wait()
        process.stdout.close()


def _any_browser(place: Place, endpoints: Endpoints):
    return next(r for r in manifests(place, endpoints, EXT_ID) if r.name == "any browser")


def test_a_running_managed_browser_makes_a_missing_user_browser_host_a_warning(
    place: Place, endpoints: Endpoints, holder: int
) -> None:
    row = _any_browser(place, endpoints)
    assert row.verdict == "warn", row
    assert row.detail == (
        "the native host is not registered for any of your own browsers; the managed browser of"
        f" this instance (pid {holder}) has its own in its profile, so Ghostlight works there"
    )
    assert row.fix.startswith("to drive your own browser too: ghostlight install --instance ")


def test_a_managed_browser_that_stopped_is_broken_and_the_fix_is_to_launch_it_again(
    place: Place, endpoints: Endpoints, managed_profile: Path
) -> None:
    row = _any_browser(place, endpoints)
    assert row.verdict == "fail"
    assert row.detail == (
        f"the managed browser of this instance is not running (profile {managed_profile}), and"
        " none of your own browsers has the native host"
    )
    assert row.fix.startswith(f"ghostlight browser launch --instance {endpoints.instance}")


def test_without_any_managed_browser_no_host_anywhere_is_broken_and_install_fixes_it(
    place: Place, endpoints: Endpoints
) -> None:
    row = _any_browser(place, endpoints)
    assert row.verdict == "fail" and row.detail == "the native host is not registered for any browser"
    assert row.fix.startswith("ghostlight install")
