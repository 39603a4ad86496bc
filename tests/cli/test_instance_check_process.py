"""The real command line, in a home of its own: the kill switch pressed for an instance that
does not exist is refused, names the one that does, and leaves no trace; ``instances`` lists
what ``install`` set up without starting anything."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

pytestmark = pytest.mark.process


@pytest.fixture
def isolated(tmp_path: Path) -> Iterator[dict[str, str]]:
    """Only what a login shell of a new user would have: HOME, the XDG dirs and TMPDIR are
    this test's (the runtime dir short, as socket paths need)."""
    runtime = Path(tempfile.mkdtemp(prefix="glt-proc-"))
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(tmp_path / "home"),
        "XDG_CONFIG_HOME": str(tmp_path / "home" / ".config"),
        "XDG_DATA_HOME": str(tmp_path / "home" / ".local" / "share"),
        "XDG_STATE_HOME": str(tmp_path / "home" / ".local" / "state"),
        "XDG_RUNTIME_DIR": str(runtime),
        "TMPDIR": str(tmp_path / "tmp"),
    }
    for key in ("HOME", "TMPDIR"):
        Path(env[key]).mkdir()
    try:
        yield env
    finally:
        shutil.rmtree(runtime, ignore_errors=True)


def ghostlight(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ghostlight_trio", *args],
        env=env, capture_output=True, text=True, timeout=60, check=False,
    )


def everything(env: dict[str, str]) -> set[Path]:
    roots = (Path(env["HOME"]), Path(env["XDG_RUNTIME_DIR"]), Path(env["TMPDIR"]))
    return {path for root in roots for path in root.rglob("*")}


def test_panic_for_an_instance_that_is_not_there_is_refused_and_creates_nothing(isolated):
    nothing = ghostlight(isolated, "panic", "--instance", "not-there")
    assert nothing.returncode == 2 and nothing.stdout == ""
    assert "no instance 'not-there': nothing is set up yet" in nothing.stderr
    assert everything(isolated) == set()

    installed = ghostlight(isolated, "install", "--no-clients")
    assert installed.returncode == 0, installed.stderr
    before = everything(isolated)
    refused = ghostlight(isolated, "panic", "--instance", "not-there")
    assert refused.returncode == 2
    assert refused.stdout == "" and "Kill switch" not in refused.stderr
    assert refused.stderr.splitlines() == [
        "ghostlight: no instance 'not-there' (known: default); to create it, run"
        " `ghostlight service start --instance not-there` or"
        " `ghostlight install --instance not-there`"
    ]
    assert everything(isolated) == before  # no directory under the runtime or data roots

    empty = ghostlight(isolated, "panic", "--instance", "")
    assert empty.returncode == 2 and "--instance is empty" in empty.stderr
    assert everything(isolated) == before


def test_instances_lists_what_install_set_up_and_starts_nothing(isolated):
    assert ghostlight(isolated, "install", "--no-clients").returncode == 0
    before = everything(isolated)
    listed = ghostlight(isolated, "instances")
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.splitlines()[1].split() == ["default", "stopped", "off", "-"]
    rows = json.loads(ghostlight(isolated, "instances", "--json").stdout)["instances"]
    assert [(row["instance"], row["running"]) for row in rows] == [("default", False)]
    assert everything(isolated) == before  # no service, socket or lock came up
