"""The README's first command, ``ghostlight demo``, as a new user runs it: a fresh home, no
XDG_RUNTIME_DIR (a container, root, an ssh session), the real service, a managed headless
Chromium with the real extension and native host, and the real MCP connector."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from .isolated import cli_env

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("runtime", ["no XDG_RUNTIME_DIR", "XDG_RUNTIME_DIR"])
def test_the_demo_runs_from_a_fresh_home(tmp_path: Path, runtime: str) -> None:
    home = tmp_path / "home"
    home.mkdir()
    # A temporary directory as short as the usual /tmp: Chromium's own socket path must fit.
    tmp = Path(tempfile.mkdtemp(prefix="gl-demo-", dir="/tmp"))
    env = cli_env(home, tmp)
    if runtime == "XDG_RUNTIME_DIR":
        (tmp_path / "run").mkdir(mode=0o700)
        env["XDG_RUNTIME_DIR"] = str(tmp_path / "run")
    try:
        done = subprocess.run(
            [sys.executable, "-m", "ghostlight_trio", "demo"],
            cwd=home, env=env, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Demo finished" in done.stdout
    assert "Hello from Ghostlight" in done.stdout  # the page was read through get_page_text
    # It acted too: the receipt of the click saw the greeting the page wrote.
    assert 'Expectation met' in done.stdout and '"Hello, Ada!"' in done.stdout
    assert "`ghostlight install`" in done.stdout  # the next step
    assert "INFO" not in done.stdout + done.stderr  # the connector's log went to its file
    shot = (home / "ghostlight-demo.jpg").read_bytes()
    assert shot[:3] == b"\xff\xd8\xff" and len(shot) > 1000
