"""Installing again over our own entry changes only the keys install owns (how the connector
is launched): a server the user switched off stays off, Codex timeouts and comments stay, and
an entry that already launches the connector right is a noop however it is laid out."""

from __future__ import annotations

import argparse
import json
import tomllib
from pathlib import Path

import pytest

from ghostlight_trio.cli import install_command
from ghostlight_trio.install import clients, jsonc
from ghostlight_trio.install.client_configs import server_entry
from ghostlight_trio.install.identity import (
    MCP_CONNECTOR,
    connector_args,
    find_executable,
    pinned_env,
    server_name,
)
from ghostlight_trio.install.places import Place
from ghostlight_trio.install.plan import plan_install, plan_uninstall
from ghostlight_trio.transport.endpoints import Endpoints

from .helpers import apply_all, only

STALE = f"/old/bin/{MCP_CONNECTOR}"


def write(place: Place, client_id: str, text: str) -> Path:
    path = clients.client(client_id).path(place)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def wanted(client_id: str, endpoints: Endpoints) -> dict:
    """The entry install writes for this client here."""
    target = clients.client(client_id)
    command = str(find_executable(MCP_CONNECTOR))
    return server_entry(target.dialect, command, connector_args(endpoints), pinned_env())


def entry_in(place: Place, client_id: str, endpoints: Endpoints) -> dict:
    target = clients.client(client_id)
    text = target.path(place).read_text()
    data = tomllib.loads(text) if target.fmt == "toml" else jsonc.loads(text)
    for key in target.container:
        data = data[key]
    return data[server_name(endpoints.instance)]


def install_once(place: Place, endpoints: Endpoints, client_id: str):
    [action] = plan_install(place, endpoints, only(client_id))
    assert not action.failed, action
    apply_all([action])
    return action


@pytest.mark.parametrize("client_id", ["cursor", "windsurf", "claude-code", "claude-desktop"])
def test_a_disabled_entry_stays_disabled(place: Place, endpoints: Endpoints, client_id: str) -> None:
    """An older install's entry (a stale command) that the user switched off: install fixes the
    command and keeps ``"disabled": true`` byte for byte; then it is a noop."""
    name = server_name(endpoints.instance)
    original = (
        '{\n  "mcpServers": {\n'
        f'    "{name}": {{\n      "command": "{STALE}",\n      "args": [],\n'
        '      "disabled": true,  // off while I debug\n      "autoApprove": ["navigate"]\n'
        "    }\n  }\n}\n"
    )
    path = write(place, client_id, original)
    action = install_once(place, endpoints, client_id)
    assert action.change.verb == "update"
    text = path.read_text()
    assert '      "disabled": true,  // off while I debug\n      "autoApprove": ["navigate"]' in text
    entry = entry_in(place, client_id, endpoints)
    ours = wanted(client_id, endpoints)
    assert entry == {**ours, "disabled": True, "autoApprove": ["navigate"]}

    [again] = plan_install(place, endpoints, only(client_id))
    assert not again.change.changes_anything
    assert "switched off there (disabled: true)" in again.note

    apply_all(plan_uninstall(place, endpoints, only(client_id)))
    assert name not in jsonc.loads(path.read_text())["mcpServers"]  # the whole entry goes


def test_a_right_entry_switched_off_is_a_noop(
    place: Place, endpoints: Endpoints, capsys: pytest.CaptureFixture[str]
) -> None:
    """Already launching the connector right: nothing is written and the report says so."""
    name = server_name(endpoints.instance)
    entry = {**wanted("cursor", endpoints), "disabled": True}
    original = json.dumps({"mcpServers": {name: entry}}, indent=2) + "\n"
    path = write(place, "cursor", original)
    [action] = plan_install(place, endpoints, only("cursor"))
    assert not action.change.changes_anything
    arguments = argparse.Namespace(
        dry_run=False, client=["cursor"], no_clients=False, browser=[], extension_id=None,
        autostart=False, wait=0,
    )
    install_command.run(endpoints, arguments, installing=True)
    out = capsys.readouterr().out
    assert "[noop]" in out and "update" not in out
    assert path.read_text() == original


def test_opencode_keeps_enabled_false(place: Place, endpoints: Endpoints) -> None:
    name = server_name(endpoints.instance)
    original = (
        '{\n  // mine\n  "mcp": {\n'
        f'    "{name}": {{"type": "local", "command": ["{STALE}"], "enabled": false, "timeout": 9000}},\n'
        "  },\n}\n"
    )
    path = write(place, "opencode", original)
    install_once(place, endpoints, "opencode")
    entry = entry_in(place, "opencode", endpoints)
    ours = wanted("opencode", endpoints)
    assert entry["enabled"] is False and entry["timeout"] == 9000
    assert entry["command"] == ours["command"]
    assert entry.get("environment") == ours.get("environment")
    assert path.read_text().startswith('{\n  // mine\n  "mcp": {\n')
    [again] = plan_install(place, endpoints, only("opencode"))
    assert not again.change.changes_anything


CODEX_KEPT = (
    "startup_timeout_sec = 60  # the first start is slow here\n"
    "# tools may take long\n"
    "tool_timeout_sec = 120\n"
)


def test_codex_keeps_its_timeouts_and_comments(place: Place, endpoints: Endpoints) -> None:
    """Only the command, args and env lines change; the timeouts and every comment stay."""
    name = server_name(endpoints.instance)
    original = (
        'model = "o3"\n\n'
        f"[mcp_servers.{name}]\n"
        f'command = "{STALE}"  # pinned\n'
        'args = ["--old"]\n'
        f"{CODEX_KEPT}"
        "\n# another server\n[mcp_servers.docs]\ncommand = \"d\"\n"
    )
    path = write(place, "codex", original)
    action = install_once(place, endpoints, "codex")
    assert action.change.verb == "update"
    text = path.read_text()
    ours = wanted("codex", endpoints)
    assert f"command = {json.dumps(ours['command'])}  # pinned\n" in text
    assert CODEX_KEPT in text
    assert text.startswith('model = "o3"\n\n') and text.endswith('[mcp_servers.docs]\ncommand = "d"\n')
    entry = entry_in(place, "codex", endpoints)
    assert entry == {**ours, "startup_timeout_sec": 60, "tool_timeout_sec": 120}

    [again] = plan_install(place, endpoints, only("codex"))
    assert not again.change.changes_anything

    apply_all(plan_uninstall(place, endpoints, only("codex")))
    data = tomllib.loads(path.read_text())
    assert list(data["mcp_servers"]) == ["docs"] and "timeout" not in path.read_text()


@pytest.mark.parametrize("layout", ["env-sub-table", "trailing-comment", "reordered"])
def test_a_right_codex_entry_laid_out_otherwise_is_a_noop(
    place: Place, endpoints: Endpoints, layout: str
) -> None:
    """The parsed values of the owned keys are what install writes, so nothing is rewritten,
    however the entry is laid out."""
    name = server_name(endpoints.instance)
    ours = wanted("codex", endpoints)
    command, args = f"command = {json.dumps(ours['command'])}\n", f"args = {json.dumps(ours['args'])}\n"
    env = ", ".join(f"{key} = {json.dumps(value)}" for key, value in ours["env"].items())
    env_line = f"env = {{ {env} }}\n"
    body = {
        "env-sub-table": command + args + f"\n[mcp_servers.{name}.env]\n" + env.replace(", ", "\n") + "\n",
        "trailing-comment": command.replace("\n", "  # the connector\n") + args + env_line,
        "reordered": env_line + args + command,
    }[layout]
    original = f"[mcp_servers.{name}]\n{body}"
    path = write(place, "codex", original)
    [action] = plan_install(place, endpoints, only("codex"))
    assert not action.failed and not action.change.changes_anything, action.change.diff()
    assert path.read_text() == original


def test_a_codex_env_sub_table_is_rewritten_in_place(
    place: Place, endpoints: Endpoints, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pin that changed: the [NAME.env] sub-table gets the new values where it was."""
    name = server_name(endpoints.instance)
    ours = wanted("codex", endpoints)
    original = (
        f"[mcp_servers.{name}]\n"
        f"command = {json.dumps(ours['command'])}\n"
        f"args = {json.dumps(ours['args'])}\n"
        "tool_timeout_sec = 120\n\n"
        f"[mcp_servers.{name}.env]\nGHOSTLIGHT_HOME = \"/somewhere/else\"\n\n"
        "[profiles.fast]\nmodel = \"o4-mini\"\n"
    )
    path = write(place, "codex", original)
    install_once(place, endpoints, "codex")
    text = path.read_text()
    assert text.startswith(original.split("\n\n")[0] + "\n\n" + f"[mcp_servers.{name}.env]\n")
    assert text.endswith('\n\n[profiles.fast]\nmodel = "o4-mini"\n')
    assert entry_in(place, "codex", endpoints) == {**ours, "tool_timeout_sec": 120}
