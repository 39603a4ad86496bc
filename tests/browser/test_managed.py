"""Managed-browser preparation: browser discovery, the per-instance host manifest and wrapper,
and the browser's scheduling priority."""

from __future__ import annotations

import json
import os
import stat
import subprocess
from pathlib import Path

import pytest

from ghostlight_trio.browser import managed, priority
from ghostlight_trio.browser.priority import run_in_background
from ghostlight_trio.transport.endpoints import Endpoints


def test_find_browser_explains_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(managed.ManagedBrowserError, match="Install Chromium"):
        managed.find_browser()
    with pytest.raises(managed.ManagedBrowserError, match="not found"):
        managed.find_browser("/nonexistent/chrome")


def test_prepare_profile_registers_the_host_for_this_instance(
    endpoints: Endpoints, tmp_path: Path
) -> None:
    extension = tmp_path / "ext"
    extension.mkdir()
    (extension / "extension-id.txt").write_text("a" * 32 + "\n")
    profile = managed.prepare_profile(endpoints, extension)
    assert profile == endpoints.data_dir / "browser-profile"
    manifest = json.loads(
        (profile / "NativeMessagingHosts" / "io.ghostlight.trio.json").read_text()
    )
    assert manifest["name"] == "io.ghostlight.trio"
    assert manifest["allowed_origins"] == [f"chrome-extension://{'a' * 32}/"]
    wrapper = Path(manifest["path"])
    assert wrapper.is_relative_to(endpoints.data_dir)
    assert stat.S_IMODE(wrapper.stat().st_mode) == 0o700
    script = wrapper.read_text()
    assert f"export GHOSTLIGHT_INSTANCE={endpoints.instance}" in script
    assert f"export GHOSTLIGHT_HOME={os.environ['GHOSTLIGHT_HOME']}" in script
    assert "-m ghostlight_browser_connector" in script


def test_prepare_profile_needs_the_extension_id(endpoints: Endpoints, tmp_path: Path) -> None:
    with pytest.raises(managed.ManagedBrowserError, match="extension-id.txt"):
        managed.prepare_profile(endpoints, tmp_path)


def test_the_callers_own_scheduling_group_is_never_lowered() -> None:
    """Only a browser leading a session of its own gets background priority: a process that
    shares the caller's session (or the caller itself) is left alone, and so is the caller."""
    ours = Path("/proc/self/autogroup")
    before = ours.read_text() if ours.exists() else None
    child = subprocess.Popen(["sleep", "30"])  # same session as this test
    try:
        assert not run_in_background(child.pid)
        assert not run_in_background(os.getpid())
    finally:
        child.kill()
        child.wait()
    assert (ours.read_text() if ours.exists() else None) == before


@pytest.mark.parametrize("caller_group", ["its own", "the default (reads empty)"])
def test_a_browser_in_a_session_of_its_own_gets_background_priority(
    caller_group: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whatever group the caller is in, including the default one that a process started by a
    service manager without a session of its own reads as empty, the browser's group is set."""
    if not Path("/proc/self/autogroup").exists():
        pytest.skip("this kernel has no autogroups")
    if caller_group.startswith("the default"):
        real = priority._group_name
        monkeypatch.setattr(
            priority, "_group_name", lambda path: "" if path.parent.name == "self" else real(path)
        )
    child = subprocess.Popen(["sleep", "30"], start_new_session=True)
    try:
        assert run_in_background(child.pid)
        group, _, nice = Path(f"/proc/{child.pid}/autogroup").read_text().split()
        assert int(nice) == priority.BACKGROUND_NICE
        assert group != Path("/proc/self/autogroup").read_text().split()[0]
    finally:
        child.kill()
        child.wait()
