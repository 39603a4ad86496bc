"""Nothing leaves the machine that the agent's pages did not make.

Under ``strace -f``, every process followed, run: the demo (navigate, read and a screenshot
through the real connector, service, native host and managed browser), a longer session on the
managed browser (``tests/e2e/traced_session.py``: read, find, click, typing, a GIF exported and
placed in a file input, a download), the installer's dry run and doctor. Any TCP connect, UDP
datagram or DNS query beyond loopback fails the test with the process and the destination. The
pages these runs open are served on loopback, so any attempt seen is the product's own, or its
managed browser's.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from .trace import attempts, strace_command

pytestmark = [pytest.mark.e2e, pytest.mark.process]
ROOT = Path(__file__).resolve().parents[2]
SESSION = ROOT / "tests" / "e2e" / "traced_session.py"


@pytest.fixture(scope="module")
def strace() -> str:
    found = shutil.which("strace")
    assert found, "the egress test needs strace (apt-get install strace; .ci/run installs it)"
    probe = subprocess.run([found, "-f", "-qq", "-o", os.devnull, "true"], capture_output=True)
    assert probe.returncode == 0, f"strace cannot trace here: {probe.stderr.decode()}"
    return found


def _traced(command: list[str], log: Path, env: dict[str, str], timeout: float) -> str:
    """Run ``command`` under strace; what reaches beyond loopback is judged before whether the
    command itself succeeded, so a failing run still shows what it tried to reach."""
    done = subprocess.run(
        strace_command(str(log)) + command,
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout,
    )  # fmt: skip
    _assert_local(log)
    assert done.returncode == 0, f"{command} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


def _assert_local(log: Path) -> None:
    with log.open(encoding="utf-8", errors="replace") as lines:
        found = attempts(lines)
    shown = "\n".join(sorted({str(attempt) for attempt in found}))
    assert not found, f"{len(found)} attempts to reach beyond this machine:\n{shown}"


@pytest.fixture
def isolated(tmp_path: Path) -> Iterator[dict[str, str]]:
    """The environment of a traced run: a home of its own and a short temporary directory
    (socket paths must fit), no instance of the caller's."""
    home = tmp_path / "home"
    home.mkdir()
    tmp = Path(tempfile.mkdtemp(prefix="gl-egress-", dir="/tmp"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("GHOSTLIGHT_")}
    env.update(HOME=str(home), TMPDIR=str(tmp))
    env.pop("XDG_RUNTIME_DIR", None)
    try:
        yield env
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def test_the_demo_and_the_command_line_stay_local(
    strace: str, tmp_path: Path, isolated: dict[str, str]
) -> None:
    ghostlight = [sys.executable, "-m", "ghostlight_trio"]
    out = _traced(ghostlight + ["demo"], tmp_path / "demo.trace", isolated, 180)
    assert "Demo finished" in out
    _traced(ghostlight + ["install", "--dry-run"], tmp_path / "install.trace", isolated, 60)
    subprocess.run(
        strace_command(str(tmp_path / "doctor.trace")) + ghostlight + ["doctor"],
        cwd=ROOT, env=isolated, capture_output=True, timeout=120,
    )  # fmt: skip  (doctor exits 1 on a machine with nothing installed; its checks still run)
    _assert_local(tmp_path / "doctor.trace")


def test_a_browser_session_stays_local(
    strace: str, tmp_path: Path, isolated: dict[str, str]
) -> None:
    session = [
        sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
        f"--basetemp={tmp_path / 'session'}", str(SESSION),
    ]  # fmt: skip
    out = _traced(session, tmp_path / "session.trace", isolated, 180)
    assert "1 passed" in out, out[-3000:]
