"""Managed-browser preparation: browser discovery, the per-instance host manifest and wrapper,
and the browser's scheduling priority."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import attrs
import pytest

from ghostlight_trio.browser import managed, priority
from ghostlight_trio.browser.priority import autogroup, run_in_background
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


def test_the_browser_s_temporary_files_go_to_a_directory_of_the_instance(
    endpoints: Endpoints,
) -> None:
    """Chromium leaves a directory in /tmp (its singleton socket) each time it is stopped: the
    managed browser's go to one directory of the instance, emptied at each launch."""
    first = managed.browser_environment(endpoints)
    assert first is not None
    temp = Path(first["TMPDIR"])
    assert temp == endpoints.runtime_dir / managed.BROWSER_TEMP
    assert stat.S_IMODE(temp.stat().st_mode) == 0o700
    (temp / "org.chromium.Chromium.left").mkdir()
    managed.browser_environment(endpoints)
    assert list(temp.iterdir()) == []
    assert first["PATH"] == os.environ["PATH"]


WHERE_THE_SERVICE_IS = (
    "from ghostlight_trio.transport.endpoints import Endpoints;"
    " print(Endpoints.for_instance().browser_socket)"
)


@pytest.mark.parametrize("own_tmpdir", [False, True])
def test_the_host_chrome_starts_finds_the_instance_s_sockets_where_the_service_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, own_tmpdir: bool
) -> None:
    """Without XDG_RUNTIME_DIR (a container, root, an ssh session) the sockets live under the
    temporary directory. Chromium runs with a TMPDIR of the instance's own and its host
    inherits it: the host script must give the host back the one the service saw, or the
    host looks for the service somewhere else and the browser never connects."""
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    monkeypatch.setenv("GHOSTLIGHT_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("GHOSTLIGHT_INSTANCE", "hostenv")
    if own_tmpdir:
        (tmp_path / "tmp").mkdir()
        monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    else:
        monkeypatch.delenv("TMPDIR", raising=False)
    # Each answer from a process of its own: a process keeps the temporary directory it saw.
    service_side = subprocess.run(
        [sys.executable, "-c", WHERE_THE_SERVICE_IS], capture_output=True, text=True, check=True
    ).stdout.strip()
    endpoints = Endpoints.for_instance()  # where the host script and the browser's TMPDIR go
    browser_env = managed.browser_environment(endpoints)
    assert browser_env is not None and browser_env["TMPDIR"] != os.environ.get("TMPDIR")
    wrapper = managed.write_host_wrapper(endpoints)
    # The host script as Chrome runs it (in the browser's environment), its relay replaced by
    # a line that prints where the host would look for the service.
    *setup, _relay = wrapper.read_text().splitlines()
    wrapper.write_text("\n".join([*setup, f'exec {sys.executable} -c "{WHERE_THE_SERVICE_IS}"']) + "\n")
    host_side = subprocess.run(
        [str(wrapper)], env=browser_env, capture_output=True, text=True, check=True
    ).stdout.strip()
    assert host_side == service_side


def test_a_temporary_directory_too_deep_for_chromium_s_socket_is_not_used(
    endpoints: Endpoints, tmp_path: Path
) -> None:
    deep = attrs.evolve(endpoints, runtime_dir=tmp_path / ("d" * 90))
    assert managed.browser_environment(deep) is None


def test_prepare_profile_needs_the_extension_id(endpoints: Endpoints, tmp_path: Path) -> None:
    with pytest.raises(managed.ManagedBrowserError, match="extension-id.txt"):
        managed.prepare_profile(endpoints, tmp_path)


def test_the_callers_own_scheduling_group_is_never_lowered() -> None:
    """Only a browser leading a session of its own gets background priority: a process that
    shares the caller's session (or the caller itself) is left alone, and so is the caller."""
    ours = Path("/proc/self/autogroup")
    before = (ours.read_text() if ours.exists() else None, os.getpriority(os.PRIO_PGRP, 0))
    child = subprocess.Popen(["sleep", "30"])  # same session as this test
    try:
        assert not run_in_background(child.pid)
        assert not run_in_background(os.getpid())
        assert os.getpriority(os.PRIO_PROCESS, child.pid) == before[1]
    finally:
        child.kill()
        child.wait()
    assert (ours.read_text() if ours.exists() else None, os.getpriority(os.PRIO_PGRP, 0)) == before


def _nice(pid: int) -> int:
    return os.getpriority(os.PRIO_PROCESS, pid)


def _children(pid: int) -> list[int]:
    children = []
    for stat_file in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat_file.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            children.append(int(stat_file.parent.name))
    return children


@pytest.mark.parametrize("caller_group", ["its own", "the default (reads empty)"])
def test_a_browser_in_a_session_of_its_own_gets_background_priority(
    caller_group: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both levels: the browser's scheduling group (whatever group the caller is in, including
    the kernel's default one, which reads as empty) and its processes' own nice, which what it
    starts later inherits. The caller keeps its own."""
    if caller_group.startswith("the default"):
        real = priority.autogroup
        monkeypatch.setattr(priority, "autogroup", lambda pid: None if pid == "self" else real(pid))
    ours = _nice(0)
    if ours >= priority.BACKGROUND_NICE:
        pytest.skip("this test already runs at background priority or below")
    # A stand-in browser that starts a process of its own once told to (after the change).
    child = subprocess.Popen(
        ["sh", "-c", "read go; sleep 30 & wait"], stdin=subprocess.PIPE, start_new_session=True
    )
    try:
        assert run_in_background(child.pid)
        assert _nice(child.pid) == priority.BACKGROUND_NICE
        if Path(f"/proc/{child.pid}/autogroup").exists():  # a kernel with autogroups
            theirs, ours_group = autogroup(child.pid), autogroup("self")
            assert theirs is not None and theirs[1] == priority.BACKGROUND_NICE
            assert ours_group is None or theirs[0] != ours_group[0]
        assert child.stdin is not None
        child.stdin.write(b"go\n")
        child.stdin.flush()
        for _ in range(200):
            started = _children(child.pid)
            if started:
                break
            time.sleep(0.01)
        assert [_nice(pid) for pid in started] == [priority.BACKGROUND_NICE]
    finally:
        child.kill()
        child.wait()
    assert _nice(0) == ours
