"""``ghostlight bundle`` makes a bundle Claude Desktop accepts and can run: the official
``mcpb`` CLI validates its manifest, and its packed connector, started from an unpacked copy
exactly as the manifest's ``mcp_config`` says, answers ``tools/list`` with the whole catalog.

That connector runs on an interpreter without site-packages (``-S``): everything it and the
service it starts import comes from the bundle. The service is then stopped by the bundle's
own CLI, and no process under the test's HOME may be left.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import trio
from faults.stack import command_of, kill_all, left_under, processes_under  # tests/ is on sys.path

from ghostlight_trio.catalog.registry import load_specs
from ghostlight_trio.cli.mcp_client import McpClient
from ghostlight_trio.install.bundle import build

pytestmark = pytest.mark.process
NODE_DIR = Path(__file__).parent / "node"
MCPB_CLI = NODE_DIR / "node_modules" / "@anthropic-ai" / "mcpb" / "dist" / "cli" / "cli.js"
INSTANCE = "bundled"
"""The instance the person names in the bundle's settings (a policy file is the other one)."""
SETTLE = 5.0


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """The bundle as the command builds it, and what its ``--json`` said."""
    out = tmp_path_factory.mktemp("bundle") / "ghostlight.mcpb"
    done = subprocess.run(
        [sys.executable, "-m", "ghostlight_trio", "bundle", "--out", str(out), "--json"],
        capture_output=True, text=True, timeout=180,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return out, json.loads(done.stdout)


@pytest.fixture
def unpacked(bundle: tuple[Path, dict[str, Any]], tmp_path: Path) -> Path:
    target = tmp_path / "unpacked"
    with zipfile.ZipFile(bundle[0]) as archive:
        archive.extractall(target)
    return target


@pytest.fixture
def isolated(tmp_path: Path) -> Iterator[tuple[dict[str, str], Path]]:
    """An environment of its own (HOME under the test, a short TMPDIR for the sockets, no
    Ghostlight or XDG variables) with ``python3`` on PATH running without site-packages."""
    home = tmp_path / "home"
    home.mkdir()
    tmp = Path(tempfile.mkdtemp(prefix="gl-mcpb-", dir="/tmp"))
    shims = tmp / "bin"
    shims.mkdir()
    base = getattr(sys, "_base_executable", sys.executable)
    for name in ("python3", "python"):
        shim = shims / name
        shim.write_text(f'#!/bin/sh\nexec {base} -S "$@"\n')
        shim.chmod(0o755)
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("GHOSTLIGHT_", "XDG_", "PYTHON", "VIRTUAL_ENV"))
    }
    env.update(HOME=str(home), TMPDIR=str(tmp), PATH=f"{shims}{os.pathsep}{env.get('PATH', '')}")
    try:
        yield env, home
    finally:
        kill_all(processes_under(home))
        shutil.rmtree(tmp, ignore_errors=True)


def test_the_command_reports_what_it_built(bundle: tuple[Path, dict[str, Any]]) -> None:
    path, report = bundle
    assert report["ok"] is True and report["file"] == str(path)
    assert report["bytes"] == path.stat().st_size
    names = {dep["name"].lower() for dep in report["dependencies"]}
    assert {"trio", "attrs", "cbor2", "jsonschema", "pillow"} <= names
    assert "pytest" not in names and "mcp" not in names  # dev tools stay out
    compiled = any(dep["compiled"] for dep in report["dependencies"])
    assert bool(report["platforms"]) == compiled


def test_two_builds_are_byte_identical(bundle: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    again = tmp_path / "again.mcpb"
    build(again)
    assert again.read_bytes() == bundle[0].read_bytes()


def test_the_bundle_carries_all_three_executables(unpacked: Path) -> None:
    lib = unpacked / "server" / "lib"
    for package in ("ghostlight_trio", "ghostlight_mcp_connector", "ghostlight_browser_connector"):
        assert (lib / package / "__main__.py").is_file(), package
    assert (lib / "ghostlight_trio" / "catalog" / "tool-catalog.json").is_file()
    assert (lib / "ghostlight_trio" / "extension" / "manifest.json").is_file()
    scripts = next(lib.glob("ghostlight_trio-*.dist-info")) / "entry_points.txt"
    assert "ghostlight-browser-connector" in scripts.read_text()


def test_the_mcpb_cli_unpacks_the_bundle_and_validates_its_manifest(
    bundle: tuple[Path, dict[str, Any]], unpacked: Path, tmp_path: Path
) -> None:
    node = shutil.which("node")
    if node is None or not MCPB_CLI.is_file():
        reason = "the mcpb CLI is not installed: run `npm ci` in tests/bundle/node"
        print(reason)
        pytest.skip(reason)
    theirs = tmp_path / "theirs"
    _mcpb(node, "unpack", str(bundle[0]), str(theirs))
    ours = sorted(p.relative_to(unpacked) for p in unpacked.rglob("*") if p.is_file())
    assert sorted(p.relative_to(theirs) for p in theirs.rglob("*") if p.is_file()) == ours
    said = _mcpb(node, "validate", str(theirs / "manifest.json"))
    assert "validation passes" in said, said


def _mcpb(node: str, *arguments: str) -> str:
    done = subprocess.run(
        [node, str(MCPB_CLI), *arguments], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


async def test_the_packed_connector_lists_every_tool(
    unpacked: Path, isolated: tuple[dict[str, str], Path], tmp_path: Path
) -> None:
    env, home = isolated
    manifest = json.loads((unpacked / "manifest.json").read_text())
    config = manifest["server"]["mcp_config"]
    policy = tmp_path / "policy.json"
    made = await trio.run_process(
        [sys.executable, "-m", "ghostlight_trio", "policy", "init", str(policy)], check=False
    )
    assert made.returncode == 0
    settings = {"instance": INSTANCE, "policy_manifest": str(policy)}
    env.update(
        {key: _substituted(value, unpacked, settings) for key, value in config["env"].items()}
    )
    command = shutil.which(config["command"], path=env["PATH"])
    assert command is not None and command.startswith(env["TMPDIR"])
    argv = [command, *(_substituted(arg, unpacked, settings) for arg in config["args"])]
    log = tmp_path / "connector.log"
    with log.open("wb") as stderr:
        async with await McpClient.spawn(
            argv, env=env, stderr=stderr.fileno(), client_name="mcpb-test"
        ) as client:
            tools = await client.list_tools()
    catalog = [spec.name for spec in load_specs()]
    assert len(tools) == len(catalog) == 26, log.read_text()
    assert {tool["name"] for tool in tools} == set(catalog)
    assert [tool["name"] for tool in manifest["tools"]] == [tool["name"] for tool in tools]
    services = [
        pid for pid, line in processes_under(home).items() if "ghostlight_trio service" in line
    ]
    assert len(services) == 1, processes_under(home)
    assert f"--instance {INSTANCE}" in command_of(services[0])
    environ = _environ(services[0])
    assert environ.get("PYTHONPATH", "").startswith(str(unpacked / "server" / "lib"))
    assert environ.get("GHOSTLIGHT_MANIFEST") == str(policy)  # the policy setting reached it
    stopped = await trio.run_process(
        [command, "-m", "ghostlight_trio", "service", "stop", "--json"],
        env=env, capture_stdout=True, capture_stderr=True, check=False,
    )  # fmt: skip
    assert stopped.returncode == 0, stopped.stdout + stopped.stderr
    assert left_under(home, SETTLE) == {}


def _substituted(value: str, unpacked: Path, settings: dict[str, str]) -> str:
    """``value`` as Claude Desktop passes it: the bundle's directory and the settings filled in."""
    value = value.replace("${__dirname}", str(unpacked))
    for key, setting in settings.items():
        value = value.replace("${user_config." + key + "}", setting)
    return value


def _environ(pid: int) -> dict[str, str]:
    raw = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    pairs = (item.decode(errors="replace").partition("=") for item in raw if item)
    return {key: value for key, _, value in pairs}
