"""A browser that ignores ``--load-extension`` (as branded Chrome 137 and later does) still gets
the extension: ``browser launch`` finds it did not connect, starts the browser again over the
DevTools pipe and loads it with ``Extensions.loadUnpacked``. ``browser list`` shows the browser,
``browser stop`` ends it, and no process of the instance is left.

The stand-in for Chrome is a script that runs Chromium with every argument but
``--load-extension=...`` and ``--disable-extensions-except=...``: Chromium 156 loads the
extension from the second one alone too, where branded Chrome loads it from neither. The real
CLI runs with a HOME and TMPDIR of its own.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from e2e.isolated import isolated_home, left_behind, processes_of  # tests/ is on sys.path

CHROMIUM = Path("/usr/bin/chromium")
GHOSTLIGHT = [sys.executable, "-m", "ghostlight_trio"]
HOLDER = "ghostlight_trio.browser.pipe_holder"
pytestmark = [
    pytest.mark.e2e,
    pytest.mark.process,
    pytest.mark.skipif(not CHROMIUM.is_file(), reason="needs /usr/bin/chromium"),
]

WITHOUT_THE_FLAG = f"""#!/bin/sh
# Chromium as branded Chrome 137+ behaves: the switches that load an extension are dropped.
for arg do
  shift
  case "$arg" in --load-extension=* | --disable-extensions-except=*) continue ;; esac
  set -- "$@" "$arg"
done
exec {CHROMIUM} "$@"
"""


@pytest.fixture
def isolated(tmp_path: Path) -> Iterator[tuple[dict[str, str], Path]]:
    with isolated_home(tmp_path) as made:
        yield made


def _run(env: dict[str, str], home: Path, *argv: str, timeout: float = 30) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        GHOSTLIGHT + list(argv), cwd=home, env=env, capture_output=True, text=True, timeout=timeout
    )


def test_a_browser_that_ignores_the_flag_gets_the_extension_over_the_pipe(
    isolated: tuple[dict[str, str], Path], tmp_path: Path
) -> None:
    env, home = isolated
    wrapper = tmp_path / "chrome-without-load-extension"
    wrapper.write_text(WITHOUT_THE_FLAG)
    wrapper.chmod(0o755)

    launched = _run(env, home, "browser", "launch", "--headless", "--browser-path", str(wrapper), timeout=120)
    said = launched.stdout + launched.stderr
    assert launched.returncode == 0, said
    assert "loaded over the DevTools pipe" in launched.stdout, said

    listed = _run(env, home, "browser", "list", "--json")
    assert listed.returncode == 0, listed.stdout + listed.stderr
    [browser] = json.loads(listed.stdout)["browsers"]
    assert browser["headless"] is True and browser["loaded"] == "devtools-pipe"
    assert browser["extension_connected"] is True, browser
    assert f"browser pid {browser['pid']}" in launched.stdout

    stopped = _run(env, home, "browser", "stop", "--json")
    body = json.loads(stopped.stdout)
    assert stopped.returncode == 0 and body["ok"] is True, stopped.stdout + stopped.stderr
    assert [entry["pid"] for entry in body["stopped"]] == [browser["pid"]]
    assert json.loads(_run(env, home, "browser", "list", "--json").stdout)["browsers"] == []

    assert _run(env, home, "service", "stop").returncode == 0
    left = left_behind(home)
    assert not left, f"left running: {left}"


def test_ctrl_c_while_the_pipe_holder_runs_leaves_nothing(
    isolated: tuple[dict[str, str], Path], tmp_path: Path
) -> None:
    """The holder and its browser run in a session of their own, out of the terminal's reach:
    the command that started them stops them."""
    env, home = isolated
    wrapper = tmp_path / "chrome-without-load-extension"
    wrapper.write_text(WITHOUT_THE_FLAG)
    wrapper.chmod(0o755)
    process = subprocess.Popen(
        GHOSTLIGHT + ["browser", "launch", "--headless", "--browser-path", str(wrapper)],
        cwd=home, env=env, text=True, start_new_session=True, stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while not any(HOLDER in command for command in processes_of(home).values()):
        assert time.monotonic() < deadline and process.poll() is None, "no pipe holder started"
        time.sleep(0.05)
    os.killpg(process.pid, signal.SIGINT)
    out, err = process.communicate(timeout=30)
    assert process.returncode == 130, out + err
    assert "stopped what this command started" in err, err
    left = left_behind(home)
    assert not left, f"left running after Ctrl-C: {left}"
