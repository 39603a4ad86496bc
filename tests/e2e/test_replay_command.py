"""``ghostlight replay`` as a person runs it: a fresh home, the real service, a managed headless
Chromium with the real extension and native host, the real MCP connector. A script as
``record_actions`` exports it replays step by step, each printed with its outcome; a step whose
target is gone ends the replay there with a non-zero exit, and ``--json`` says which."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from .conftest import PAGES
from .isolated import cli_env
from .test_record_actions import _form

pytestmark = pytest.mark.e2e


def _steps(web: str) -> list[dict[str, object]]:
    def act(name: str, role: str, action: str, value: str | None = None) -> dict[str, object]:
        args: dict[str, object] = {"target": {"name": name, "role": role}, "action": action}
        return {"tool": "act_on", "args": args | ({"value": value} if value is not None else {})}

    return [
        {"tool": "navigate", "args": {"url": f"{web}/record/form"}},
        act("Full name", "textbox", "set_value", "Ada"),
        {"tool": "act_on", "args": {"target": {"name": "Password"}, "action": "set_value",
                                    "value": "{{secret:PASSWORD}}"}},  # fmt: skip
        act("Size", "combobox", "set_value", "Large"),
        act("Place order", "button", "left_click"),
    ]


@pytest.fixture
def home(tmp_path: Path) -> Iterator[tuple[Path, dict[str, str]]]:
    home = tmp_path / "home"
    home.mkdir()
    # A temporary directory as short as the usual /tmp: Chromium's own socket path must fit.
    tmp = Path(tempfile.mkdtemp(prefix="gl-replay-", dir="/tmp"))
    try:
        yield home, cli_env(home, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _replay(home: tuple[Path, dict[str, str]], *argv: str) -> subprocess.CompletedProcess[str]:
    folder, env = home
    return subprocess.run(
        [sys.executable, "-m", "ghostlight_trio", "replay", *argv, "--headless"],
        cwd=folder, env=env, capture_output=True, text=True, timeout=150,
    )  # fmt: skip


def test_a_script_replays_step_by_step(
    home: tuple[Path, dict[str, str]], web: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(PAGES, "/record/form", _form())
    script = home[0] / "flow.json"
    script.write_text(json.dumps({"steps": _steps(web)}))
    refused = _replay(home, str(script))
    assert refused.returncode == 2 and "--value PASSWORD=..." in refused.stderr
    done = _replay(home, str(script), "--value", "PASSWORD=pw")
    assert done.returncode == 0, done.stdout + done.stderr
    assert [line for line in done.stdout.splitlines() if line.startswith("[")] == [
        "[1/5] navigate: ok", "[2/5] act_on: ok", "[3/5] act_on: ok", "[4/5] act_on: ok",
        "[5/5] act_on: ok",
    ]  # fmt: skip
    assert "every step succeeded" in done.stdout
    assert "pw" not in done.stdout.split()


def test_a_missing_target_ends_the_replay_there(
    home: tuple[Path, dict[str, str]], web: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(PAGES, "/record/form", _form("Send it"))
    script = home[0] / "flow.json"
    script.write_text(json.dumps({"steps": _steps(web)}))
    done = _replay(home, str(script), "--value", "PASSWORD=pw", "--json")
    assert done.returncode == 1, done.stdout + done.stderr
    body = json.loads(done.stdout)
    assert body["ok"] is False and body["error"] == "step 5 error"
    assert [s["status"] for s in body["steps"]] == ["ok", "ok", "ok", "ok", "error"]
    assert "target_missing" in body["steps"][-1]["result"]
