"""Policy, settings and switches files are read bounded and never on the service's event loop:
a FIFO, a directory, a device or a huge file in their place is refused with a problem that
names it, the last good version stands, and the service keeps answering meanwhile."""

from __future__ import annotations

import contextlib
import functools
import json
import os
import threading
import time
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import pytest
import trio

from ghostlight_trio.catalog.registry import Catalog, load_specs
from ghostlight_trio.governance.assembly import watch_policy
from ghostlight_trio.governance.governor import Governor
from ghostlight_trio.governance.settings import load_settings
from ghostlight_trio.governance.sources import (
    MANIFEST_RECORD,
    PolicyFiles,
    PolicySources,
    user_manifest_path,
)
from ghostlight_trio.governance.switches import UnreadableSwitches, read_switches

from .harness import grant, manifest

GOOD = manifest(grant("g", ["*.example.com"], ["read"]))
RELEASE_AFTER = 3.0
"""A reader the code under test left blocked on a FIFO is let go after this long (by opening
the FIFO's other end), so a regression fails the test instead of hanging it."""


@contextlib.contextmanager
def released_fifo(path: Path) -> Iterator[None]:
    """A FIFO at ``path``; anything still blocked on it after ``RELEASE_AFTER`` is let go."""
    path.unlink(missing_ok=True)
    os.mkfifo(path)
    done = threading.Event()

    def release() -> None:
        if done.wait(RELEASE_AFTER):
            return
        while not done.is_set():
            try:  # only succeeds while a reader has it open: that reader then reads EOF
                os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
            except OSError:
                pass
            done.wait(0.05)

    thread = threading.Thread(target=release, daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()


def _files(tmp_path: Path) -> tuple[Path, Path, Governor]:
    policy, settings = tmp_path / "policy.json", tmp_path / "config.json"
    policy.write_text(json.dumps(GOOD))
    settings.write_text(json.dumps({"sacred_domains": ["bank.example"]}))
    governor = Governor(PolicySources(PolicyFiles(org=None, user=policy, settings=settings)))
    assert not governor.state.problems
    return policy, settings, governor


@pytest.mark.parametrize("which", ["settings", "manifest"])
async def test_a_fifo_in_place_of_a_policy_file_never_stalls_the_service(tmp_path, which) -> None:
    policy, settings, governor = _files(tmp_path)
    first = governor.state.tiers[0][1].manifest.hash
    specs = load_specs()
    names = [spec.name for spec in specs]
    catalog = Catalog(specs, available=names)
    longest = 0.0
    reloaded = trio.Event()
    governor.listeners.append(lambda what: reloaded.set() if what == "policy" else None)

    async def tick() -> None:  # what every other task of the service sees of the loop
        nonlocal longest
        last = time.monotonic()
        while True:
            await trio.sleep(0.02)
            now = time.monotonic()
            longest = max(longest, now - last)
            last = now

    with released_fifo(settings if which == "settings" else policy), trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(tick)
            nursery.start_soon(functools.partial(watch_policy, governor, catalog, names, poll=0.05))
            await reloaded.wait()
            nursery.cancel_scope.cancel()
    assert longest < 1.0, f"the event loop stood still for {longest:.1f} s"
    [problem] = governor.state.problems
    assert "is a FIFO (named pipe), not a regular file" in problem, problem
    # The last good version of each stands.
    assert governor.state.tiers[0][1].manifest.hash == first
    assert [p.text for p in governor.state.never_touch] == ["bank.example"]


def test_a_huge_settings_file_is_refused_without_being_read(tmp_path) -> None:
    policy, settings, governor = _files(tmp_path)
    with settings.open("r+b") as handle:  # sparse: no disk, but 32 MB to whoever reads it
        handle.truncate(32 * 1024 * 1024)
    tracemalloc.start()
    try:
        assert governor.reload_if_changed()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 8 * 1024 * 1024, f"{peak} bytes taken to refuse it"
    [problem] = governor.state.problems
    assert f"{settings} is larger than 1048576 bytes" in problem, problem
    assert "kept the last good settings" in problem
    assert [p.text for p in governor.state.never_touch] == ["bank.example"]


def test_settings_just_past_the_cap_are_refused_though_they_parse(tmp_path) -> None:
    path = tmp_path / "config.json"
    padding = " " * (1024 * 1024)
    path.write_text('{"sacred_domains": ["bank.example"]' + padding + "}")
    loaded = load_settings(path)
    assert "is larger than 1048576 bytes" in loaded.unreadable, loaded.unreadable


def test_a_directory_in_place_of_the_settings_keeps_the_last_good_settings(tmp_path) -> None:
    policy, settings, governor = _files(tmp_path)
    settings.unlink()
    settings.mkdir()
    assert governor.reload_if_changed()
    [problem] = governor.state.problems
    assert f"{settings} is a directory, not a regular file" in problem, problem
    assert [p.text for p in governor.state.never_touch] == ["bank.example"]


def test_a_link_to_the_users_settings_elsewhere_is_refused_not_followed(tmp_path) -> None:
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_text(json.dumps({"sacred_domains": []}))
    policy, settings, governor = _files(tmp_path)
    settings.unlink()
    settings.symlink_to(elsewhere)
    assert governor.reload_if_changed()
    assert [p.text for p in governor.state.never_touch] == ["bank.example"]  # not emptied
    [problem] = governor.state.problems
    assert f"{settings} is a symbolic link, which Ghostlight does not follow" in problem, problem


def test_a_manifest_that_leads_to_a_device_is_refused_unread(tmp_path) -> None:
    policy, settings, governor = _files(tmp_path)
    first = governor.state.tiers[0][1].manifest.hash
    policy.unlink()
    policy.symlink_to("/dev/zero")
    assert governor.reload_if_changed()
    [problem] = governor.state.problems
    assert f"{policy}: is a character device, not a regular file" in problem, problem
    assert governor.state.tiers[0][1].manifest.hash == first


def test_a_fifo_in_place_of_the_switches_record_is_refused_at_once(tmp_path) -> None:
    path = tmp_path / "switches.json"
    with released_fifo(path):
        started = time.monotonic()
        with pytest.raises(UnreadableSwitches) as caught:
            read_switches(path)
        took = time.monotonic() - started
    assert took < 1.0, f"read the record for {took:.1f} s"
    assert "is a FIFO (named pipe)" in str(caught.value)


def test_a_fifo_in_place_of_the_manifest_record_stands_closed(tmp_path, monkeypatch) -> None:
    """The instance's record of its manifest that cannot be read must not drop the user's
    policy: the tier stands closed and its problem names the record."""
    monkeypatch.delenv("GHOSTLIGHT_MANIFEST", raising=False)
    record = tmp_path / MANIFEST_RECORD
    with released_fifo(record):
        started = time.monotonic()
        path = user_manifest_path(data_dir=tmp_path)
        took = time.monotonic() - started
        assert path is not None
        governor = Governor(PolicySources(PolicyFiles(org=None, user=path, settings=None)))
    assert took < 1.0, f"read the record for {took:.1f} s"
    [(tier, policy)] = governor.state.tiers
    assert tier == "user" and policy.manifest.grants == ()
    assert f"{record}: is a FIFO" in governor.state.problems[0], governor.state.problems
