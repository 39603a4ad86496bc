"""Each install target against a temporary HOME: parses, carries our command, keeps the user's
bytes, is idempotent, and uninstall restores the original content."""

from __future__ import annotations

import json
import os
import plistlib
import stat
import tomllib
from pathlib import Path

import pytest

from ghostlight_trio.install import clients, hosts, jsonc
from ghostlight_trio.install.client_configs import entry_argv
from ghostlight_trio.install.identity import find_executable, server_name, wrapper_path
from ghostlight_trio.install.places import Place
from ghostlight_trio.install.plan import Options, plan_install, plan_uninstall
from ghostlight_trio.transport.endpoints import Endpoints

from .helpers import EXT_ID, apply_all

CONNECTOR = str(find_executable("ghostlight-mcp-connector"))

# What a user already has, per client: other servers, other settings, comments where allowed.
EXISTING = {
    "claude-code": '{\n  "numStartups": 7,\n  "mcpServers": {\n    "other": {\n      "type": "stdio",'
    '\n      "command": "npx",\n      "args": ["-y", "x"],\n      "env": {}\n    }\n  },\n'
    '  "projects": {}\n}\n',
    "claude-desktop": '{\n    "mcpServers": {\n        "fs": {"command": "npx", "args": ["fs"]}\n'
    "    },\n"
    '    "globalShortcut": ""\n}\n',
    "cursor": '{\n  "mcpServers": {\n    "other": { "command": "x" }\n  }\n}\n',
    "vscode": '{\n\t// my servers\n\t"servers": {\n\t\t"gh": {"type": "http", "url": "https://x"},\n'
    '\t},\n\t"inputs": []\n}\n',
    "opencode": '{\n  "$schema": "https://opencode.ai/config.json",\n  // keep me\n  "mcp": {\n'
    '    "other": {"type": "local", "command": ["x"], "enabled": true},\n  },\n}\n',
    "codex": 'model = "o3"  # my model\n\n[mcp_servers.other]\ncommand = "x"\nargs = ["a"]\n\n'
    "# trailing table\n[profiles.fast]\nmodel = \"o4-mini\"\n",
    "windsurf": '{"mcpServers": {"a": {"command": "b"}}}\n',
    "gemini": '{\n  "theme": "GitHub",\n  "mcpServers": {}\n}\n',
}
# The other clients: the sample config each golden test starts from.
EXISTING.update(
    {
        sample.parent.name: sample.read_text()
        for sample in (Path(__file__).parent / "golden").glob("*/before.*")
        if sample.parent.name not in EXISTING
    }
)


@pytest.fixture(params=["linux", "darwin"])
def place(request, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Place:
    home = tmp_path / "user"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.delenv("CODEX_HOME", raising=False)
    return Place(home=home, platform=request.param, xdg_config=home / ".config", path_env="")




def parse(target: clients.ClientTarget, text: str) -> dict:
    return tomllib.loads(text) if target.fmt == "toml" else jsonc.loads(text)


@pytest.mark.parametrize("client_id", clients.CLIENT_IDS)
@pytest.mark.parametrize("pre_existing", [True, False], ids=["existing-file", "no-file"])
def test_client_target_round_trip(
    client_id: str, pre_existing: bool, place: Place, endpoints: Endpoints
) -> None:
    target = clients.client(client_id)
    path = target.path(place)
    original = EXISTING[client_id] if pre_existing else None
    if original is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(original)
    options = Options(clients=(client_id,), browsers=())

    apply_all(plan_install(place, endpoints, options))

    text = path.read_text()
    data = parse(target, text)
    container = data
    for key in target.container:
        container = container[key]
    name = server_name(endpoints.instance)
    argv = entry_argv(target.dialect, container[name])
    assert argv == [CONNECTOR, "--instance", endpoints.instance]
    assert os.access(argv[0], os.X_OK)
    if original is not None:
        old = parse(target, original)
        for key, value in old.items():  # every other setting survives
            if key != target.container[0]:
                assert data[key] == value
        others = {k: v for k, v in container.items() if k != name}
        old_container = old.get(target.container[0], {})
        assert others == old_container
    # idempotent: a second plan changes nothing
    again = plan_install(place, endpoints, options)
    assert all(not a.change.changes_anything for a in again if a.change is not None)

    apply_all(plan_uninstall(place, endpoints, Options(clients=(client_id,), browsers=())))
    if original is None:
        assert not path.exists()
        assert not path.parent.exists() or path.parent == place.home  # nor the directory made for it
    else:  # byte for byte, an empty container the user had included
        assert path.read_bytes() == original.encode()


def test_existing_entries_keep_their_bytes(place: Place, endpoints: Endpoints) -> None:
    target = clients.client("claude-code")
    path = target.path(place)
    path.write_text(EXISTING["claude-code"])
    apply_all(plan_install(place, endpoints, Options(clients=("claude-code",), browsers=())))
    text = path.read_text()
    other = EXISTING["claude-code"][: EXISTING["claude-code"].index('\n  },\n  "projects"')]
    assert text.startswith(other)  # everything up to the end of the user's last server
    assert text.endswith('\n  },\n  "projects": {}\n}\n')


def test_backup_is_written_for_a_changed_file(place: Place, endpoints: Endpoints) -> None:
    path = clients.client("cursor").path(place)
    path.parent.mkdir(parents=True)
    path.write_text(EXISTING["cursor"])
    apply_all(plan_install(place, endpoints, Options(clients=("cursor",), browsers=())))
    backups = list(path.parent.glob("mcp.json.ghostlight-backup-*"))
    assert [b.read_text() for b in backups] == [EXISTING["cursor"]]


def test_codex_inline_table_is_refused_untouched(place: Place, endpoints: Endpoints) -> None:
    path = clients.client("codex").path(place)
    path.parent.mkdir(parents=True)
    name = server_name(endpoints.instance)
    original = f'mcp_servers = {{ "{name}" = {{ command = "/old/ghostlight-mcp-connector" }} }}\n'
    path.write_text(original)
    [action] = plan_install(place, endpoints, Options(clients=("codex",), browsers=()))
    assert action.failed and "inline" in action.note and action.manual
    assert path.read_text() == original


@pytest.mark.parametrize(
    ("client_id", "original"),
    [
        ("claude-code", '{"deep": ' + "[" * 2000 + "]" * 2000 + "}\n"),
        ("codex", "deep = " + "[" * 2000 + "]" * 2000 + "\n"),
    ],
)
def test_a_config_too_deep_to_edit_is_refused_untouched(
    place: Place, endpoints: Endpoints, client_id: str, original: str
) -> None:
    """A client config nested past what the parser follows: that client fails with the reason
    and a manual step, and its file keeps every byte."""
    path = clients.client(client_id).path(place)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(original)
    [action] = plan_install(place, endpoints, Options(clients=(client_id,), browsers=()))
    assert action.failed and action.manual
    assert "nest too deeply to edit safely" in action.note
    assert path.read_text() == original


def test_half_a_surrogate_pair_in_a_config_keeps_its_escape(
    place: Place, endpoints: Endpoints
) -> None:
    """Clients write JavaScript strings that may hold half a surrogate pair as a \\u escape;
    install and uninstall keep that escape byte for byte."""
    path = clients.client("claude-code").path(place)
    original = '{\n  "history": [{"display": "half \\ud83d here"}]\n}\n'
    path.write_text(original)
    apply_all(plan_install(place, endpoints, Options(clients=("claude-code",), browsers=())))
    assert '"half \\ud83d here"' in path.read_text()
    apply_all(plan_uninstall(place, endpoints, Options(clients=("claude-code",), browsers=())))
    assert path.read_text() == original


@pytest.mark.parametrize("browser_id", hosts.BROWSER_IDS)
def test_native_host_manifest_round_trip(
    browser_id: str, place: Place, endpoints: Endpoints
) -> None:
    target = hosts.browser(browser_id)
    options = Options(clients=(), browsers=(browser_id,), extension_ids=(EXT_ID,))
    apply_all(plan_install(place, endpoints, options))
    path = target.manifest_path(place)
    expected_dir = {
        ("linux", "chrome"): ".config/google-chrome",
        ("linux", "chromium"): ".config/chromium",
        ("linux", "edge"): ".config/microsoft-edge",
        ("linux", "brave"): ".config/BraveSoftware/Brave-Browser",
        ("darwin", "chrome"): "Library/Application Support/Google/Chrome",
        ("darwin", "chromium"): "Library/Application Support/Chromium",
        ("darwin", "edge"): "Library/Application Support/Microsoft Edge",
        ("darwin", "brave"): "Library/Application Support/BraveSoftware/Brave-Browser",
    }[(place.platform, browser_id)]
    assert path == place.home / expected_dir / "NativeMessagingHosts" / "io.ghostlight.trio.json"
    manifest = json.loads(path.read_text())
    assert manifest["name"] == "io.ghostlight.trio" and manifest["type"] == "stdio"
    assert manifest["allowed_origins"] == [f"chrome-extension://{EXT_ID}/"]
    program = Path(manifest["path"])
    assert program == wrapper_path(endpoints) and os.access(program, os.X_OK)
    script = program.read_text()
    assert f"export GHOSTLIGHT_INSTANCE={endpoints.instance}" in script
    assert "ghostlight-browser-connector" in script.splitlines()[-1]
    again = plan_install(place, endpoints, options)
    assert all(not a.change.changes_anything for a in again if a.change is not None)
    apply_all(plan_uninstall(place, endpoints, Options(clients=(), browsers=(browser_id,))))
    assert not path.exists() and not program.exists()
    assert not path.parent.exists()  # nor a backup, nor the directories made for it
    assert not target.user_dir(place).exists()  # so the browser is not "detected" afterwards


def test_named_instances_install_side_by_side(
    place: Place, endpoints: Endpoints, monkeypatch: pytest.MonkeyPatch
) -> None:
    other = Endpoints.for_instance(endpoints.instance + "-b")
    options = Options(clients=("cursor",), browsers=("chromium",), extension_ids=(EXT_ID,))
    apply_all(plan_install(place, endpoints, options))
    actions = plan_install(place, other, options)
    manifest_action = next(a for a in actions if a.label.startswith("Chromium"))
    assert manifest_action.change is None and "serves instance" in manifest_action.note
    apply_all(actions)
    servers = jsonc.loads(clients.client("cursor").path(place).read_text())["mcpServers"]
    assert set(servers) == {server_name(endpoints.instance), server_name(other.instance)}
    apply_all(plan_uninstall(place, other, Options()))
    servers = jsonc.loads(clients.client("cursor").path(place).read_text())["mcpServers"]
    assert set(servers) == {server_name(endpoints.instance)}
    assert hosts.browser("chromium").manifest_path(place).exists()  # the first one's, untouched


def test_detection_picks_installed_clients_and_browsers(place: Place, endpoints: Endpoints) -> None:
    (place.home / ".cursor").mkdir()
    (place.home / ".codex").mkdir()
    hosts.browser("brave").user_dir(place).mkdir(parents=True)
    actions = plan_install(place, endpoints, Options(extension_ids=(EXT_ID,)))
    labels = [a.label.split(":")[0] for a in actions if a.change is not None]
    assert labels == ["Cursor", "Codex", "Native host program", "Brave"]


def test_autostart_is_written_not_started(place: Place, endpoints: Endpoints) -> None:
    options = Options(clients=(), browsers=(), autostart=True)
    [action] = plan_install(place, endpoints, options)
    apply_all([action])
    path = action.change.path
    text = path.read_text()
    if place.platform == "darwin":
        assert path.parent == place.home / "Library" / "LaunchAgents"
        plist = plistlib.loads(text.encode())
        assert plist["ProgramArguments"][-3:] == ["--instance", endpoints.instance, "--keep-warm"]
        assert plist["RunAtLoad"] is True
        assert "launchctl" in action.manual
    else:
        assert path == place.home / ".config/systemd/user" / f"ghostlight-{endpoints.instance}.service"
        assert "ExecStart=" in text and f"--instance {endpoints.instance} --keep-warm" in text
        assert "WantedBy=default.target" in text
        assert "systemctl --user" in action.manual
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
    apply_all(plan_uninstall(place, endpoints, Options(clients=(), browsers=())))
    assert not path.exists()


def test_uninstall_says_what_to_run_once_the_autostart_file_is_gone(
    place: Place, endpoints: Endpoints
) -> None:
    """The step is printed after the file is removed, so it never asks for something "first"
    and names a command that still works without the file."""
    apply_all(plan_install(place, endpoints, Options(clients=(), browsers=(), autostart=True)))
    [action] = [a for a in plan_uninstall(place, endpoints, Options()) if "Autostart" in a.label]
    assert action.manual is not None and "first" not in action.manual
    assert action.manual.startswith("with the file gone the service no longer starts at login")
    if place.platform == "darwin":
        assert "launchctl bootout gui/$(id -u)/" in action.manual
    else:
        assert "systemctl --user stop ghostlight-" in action.manual
        assert "disable" not in action.manual  # needs the unit file that is gone by then
