"""Install and uninstall on configs as users really keep them: symlinked, CRLF, read-only,
unreadable, with duplicate keys or a foreign entry under our name. Each either round-trips byte
for byte or is refused with a reason and a manual step, leaving the file as it was."""

from __future__ import annotations

import argparse
import json
import os
import time
import tomllib
from pathlib import Path

import pytest

from ghostlight_trio.cli import install_command
from ghostlight_trio.install import clients, hosts, jsonc
from ghostlight_trio.install.identity import server_name, wrapper_path
from ghostlight_trio.install.places import Place
from ghostlight_trio.install.plan import Options, plan_install, plan_uninstall
from ghostlight_trio.transport.endpoints import Endpoints

from .helpers import EXT_ID, apply_all, only


def write(place: Place, client_id: str, content: bytes) -> Path:
    path = clients.client(client_id).path(place)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content)
    return path


def round_trip(place: Place, endpoints: Endpoints, client_id: str) -> bytes:
    """Install, check it took, uninstall; returns the bytes installed."""
    path = clients.client(client_id).path(place)
    apply_all(plan_install(place, endpoints, only(client_id)))
    installed = path.read_bytes()
    assert server_name(endpoints.instance).encode() in installed
    apply_all(plan_uninstall(place, endpoints, only(client_id)))
    return installed


# -- byte for byte ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("client_id", "original"),
    [
        ("cursor", b'{\r\n  "mcpServers": {\r\n    "x": {"command": "x"}\r\n  }\r\n}\r\n'),
        ("cursor", b'{\r\n  "mcpServers": {}\r\n}\r\n'),
        ("codex", b'model = "o3"\r\n\r\n[mcp_servers.other]\r\ncommand = "npx"\r\n'),
    ],
    ids=["json-crlf", "json-crlf-empty", "toml-crlf"],
)
def test_crlf_files_keep_their_line_endings(
    place: Place, endpoints: Endpoints, client_id: str, original: bytes
) -> None:
    """Inserted lines use the file's CRLF too, and uninstall gives back the exact bytes."""
    path = write(place, client_id, original)
    installed = round_trip(place, endpoints, client_id)
    assert installed.count(b"\n") == installed.count(b"\r\n") > original.count(b"\n")
    assert path.read_bytes() == original


@pytest.mark.parametrize(
    ("client_id", "original"),
    [
        ("cursor", b"{}\n"),
        ("cursor", b"{}"),
        ("cursor", b'{"mcpServers": {}}\n'),
        ("cursor", b""),
        ("cursor", b"  \n\n"),
        ("cursor", b'\xef\xbb\xbf{\n  "mcpServers": {}\n}\n'),
        ("gemini", b'{\n  "theme": "Default"\n}\n'),
        ("opencode", b'{\n  "$schema": "https://opencode.ai/config.json",\n  // comment\n  "mcp": {}\n}\n'),
        ("codex", b'model = "o3"'),
        ("codex", b""),
    ],
)
def test_uninstall_keeps_what_the_user_had(
    place: Place, endpoints: Endpoints, client_id: str, original: bytes
) -> None:
    """A file that existed stays, with its empty containers, comments and missing final
    newline: uninstall removes exactly what install added."""
    path = write(place, client_id, original)
    round_trip(place, endpoints, client_id)
    assert path.read_bytes() == original


def test_a_file_install_created_goes_with_its_directory(place: Place, endpoints: Endpoints) -> None:
    """Only what install made is taken away: no leftover directory makes the client look
    installed, and no backup of a file that was ours from the start is left."""
    for client_id in ("cursor", "codex"):
        round_trip(place, endpoints, client_id)
        assert not clients.client(client_id).path(place).parent.exists()
        assert not clients.client(client_id).detected(place)


def test_a_directory_the_user_had_stays(place: Place, endpoints: Endpoints) -> None:
    (place.home / ".cursor").mkdir()
    (place.home / ".cursor" / "notes.txt").write_text("mine")
    round_trip(place, endpoints, "cursor")
    assert sorted(p.name for p in (place.home / ".cursor").iterdir()) == ["notes.txt"]


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (  # our member first, a comment that belongs to the next one
            '{"mcpServers": {OURS,\n    // my precious server\n    "y": {"command": "y"}}}\n',
            '{"mcpServers": {\n    // my precious server\n    "y": {"command": "y"}}}\n',
        ),
        (  # our member last, comments between the members
            '{\n  "mcpServers": {\n    "x": {}, // note on x\n    // a comment\n    OURS\n  }\n}\n',
            '{\n  "mcpServers": {\n    "x": {} // note on x\n    // a comment\n  }\n}\n',
        ),
        (  # our member in the middle, on its own line
            '{\n  "mcpServers": {\n    "x": {},\n    // about y\n    OURS,\n    "y": {}\n  }\n}\n',
            '{\n  "mcpServers": {\n    "x": {},\n    // about y\n    "y": {}\n  }\n}\n',
        ),
        (  # inline
            '{"mcpServers": {"x": {}, /* c */ OURS, "y": {}}}',
            '{"mcpServers": {"x": {}, /* c */ "y": {}}}',
        ),
    ],
    ids=["first", "last", "middle", "inline"],
)
def test_uninstall_removes_only_our_member(
    place: Place, endpoints: Endpoints, before: str, after: str
) -> None:
    name = server_name(endpoints.instance)
    ours = f'"{name}": ' + json.dumps({"command": str(clients.Path("/x/ghostlight-mcp-connector"))})
    path = write(place, "vscode", before.replace("OURS", ours).replace("mcpServers", "servers").encode())
    apply_all(plan_uninstall(place, endpoints, only("vscode")))
    assert path.read_text() == after.replace("mcpServers", "servers")


# -- symlinks ----------------------------------------------------------------------------------


def test_a_symlinked_config_is_written_through_the_link(place: Place, endpoints: Endpoints) -> None:
    dotfiles = place.home / "dotfiles"
    dotfiles.mkdir()
    real = dotfiles / "mcp.json"
    original = b'{\n  "mcpServers": {\n    "x": {"command": "x"}\n  }\n}\n'
    real.write_bytes(original)
    link = clients.client("cursor").path(place)
    link.parent.mkdir()
    link.symlink_to(Path("..") / "dotfiles" / "mcp.json")
    apply_all(plan_install(place, endpoints, only("cursor")))
    assert link.is_symlink() and server_name(endpoints.instance) in real.read_text()
    apply_all(plan_uninstall(place, endpoints, only("cursor")))
    assert link.is_symlink() and real.read_bytes() == original


def test_a_dangling_symlink_is_refused(place: Place, endpoints: Endpoints) -> None:
    link = clients.client("cursor").path(place)
    link.parent.mkdir()
    link.symlink_to(place.home / "nowhere.json")
    [action] = plan_install(place, endpoints, only("cursor"))
    assert action.failed and "does not exist" in action.note and "nowhere.json" in action.manual
    assert link.is_symlink() and not (place.home / "nowhere.json").exists()


# -- refusals ----------------------------------------------------------------------------------


def test_a_foreign_entry_under_our_name_is_left_alone(place: Place, endpoints: Endpoints) -> None:
    name = server_name(endpoints.instance)
    original = json.dumps({"mcpServers": {name: {"command": "/opt/other/thing"}}}).encode()
    path = write(place, "cursor", original)
    [action] = plan_install(place, endpoints, only("cursor"))
    assert action.failed and "/opt/other/thing" in action.note and action.manual
    assert action.change is None and path.read_bytes() == original


def test_a_read_only_config_is_refused(place: Place, endpoints: Endpoints) -> None:
    original = b'{"mcpServers": {}}\n'
    path = write(place, "cursor", original)
    path.chmod(0o400)
    [action] = plan_install(place, endpoints, only("cursor"))
    assert action.failed and action.note.endswith("is read-only") and "chmod u+w" in action.manual
    assert path.read_bytes() == original


@pytest.mark.parametrize("kind", ["not-utf8", "directory"])
def test_an_unreadable_config_fails_alone(place: Place, endpoints: Endpoints, kind: str) -> None:
    """That client fails with the reason; the others are still installed and uninstalled."""
    broken = clients.client("gemini").path(place)
    broken.parent.mkdir(parents=True)
    if kind == "directory":
        broken.mkdir()
        reason = "is a directory"
    else:
        broken.write_bytes(b'{"a": "caf\xe9"}')
        reason = "is not UTF-8"
    options = Options(clients=("gemini", "cursor"), browsers=())
    cursor, gemini = plan_install(place, endpoints, options)
    assert gemini.failed and reason in gemini.note and gemini.manual
    apply_all([cursor])
    cursor, gemini = plan_uninstall(place, endpoints, options)
    assert gemini.failed and reason in gemini.note
    apply_all([cursor])
    assert clients.read_entry(clients.client("gemini"), place, "x") == (False, None)
    assert reason in (clients.read_problem(clients.client("gemini"), place) or "")


def test_duplicate_keys_on_our_path_are_refused(place: Place, endpoints: Endpoints) -> None:
    """Clients read the last of two equal keys; editing either would be a guess."""
    original = b'{\n  "mcpServers": {"x": {"command": "x"}},\n  "mcpServers": {"y": {}}\n}\n'
    path = write(place, "cursor", original)
    [action] = plan_install(place, endpoints, only("cursor"))
    assert action.failed and "appears 2 times" in action.note
    assert path.read_bytes() == original


def test_manual_steps_are_text_to_paste(place: Place, endpoints: Endpoints) -> None:
    """JSON for JSON clients, a TOML table for Codex, and the clear reason for an inline one."""
    write(place, "cursor", b"[]\n")
    write(place, "codex", b'model = "o3"\n')
    cursor, codex = plan_install(place, endpoints, Options(clients=("cursor", "codex"), browsers=()))
    name = server_name(endpoints.instance)
    pasted = json.loads(cursor.manual.split("by hand: ", 1)[1])
    assert list(pasted["mcpServers"]) == [name]
    assert codex.manual == ""  # nothing refused: it just installs
    write(place, "codex", b"model = [\n")
    [codex] = plan_install(place, endpoints, only("codex"))
    table = tomllib.loads(codex.manual.split("by hand: ", 1)[1])
    assert list(table["mcp_servers"]) == [name]


def test_an_inline_codex_container_gets_our_entry_inline(place: Place, endpoints: Endpoints) -> None:
    """A [mcp_servers.NAME] table cannot follow ``mcp_servers = { ... }``: the step says to
    write our entry inside that inline table, as text that parses there."""
    original = b'mcp_servers = { other = { command = "npx" } }\n'
    path = write(place, "codex", original)
    [codex] = plan_install(place, endpoints, only("codex"))
    assert codex.failed and "mcp_servers is written inline, not as a [table]" in codex.note
    assert "inside the inline table `mcp_servers = { ... }`" in codex.manual
    ours = codex.manual.split("`")[1]
    edited = tomllib.loads(f'mcp_servers = {{ other = {{ command = "npx" }}, {ours} }}\n')
    name = server_name(endpoints.instance)
    assert list(edited["mcp_servers"]) == ["other", name]
    assert edited["mcp_servers"][name]["command"].endswith("ghostlight-mcp-connector")
    assert path.read_bytes() == original


@pytest.mark.parametrize(
    ("original", "said"),
    [
        (b'{"mcpServers": null}\n', '"mcpServers" in {path} is null, not an object'),
        (b'{"mcpServers": []}\n', '"mcpServers" in {path} is an array, not an object'),
        (
            b'{"mcpServers": {"a": {"command": "a"}},\n "mcpServers": {}}\n',
            'merge the 2 "mcpServers" objects in {path} into one',
        ),
    ],
    ids=["null", "array", "twice"],
)
def test_a_broken_json_container_is_named_not_added_again(
    place: Place, endpoints: Endpoints, original: bytes, said: str
) -> None:
    """Adding another "mcpServers" key would not help: the step says what is wrong with the
    one there."""
    path = write(place, "cursor", original)
    [action] = plan_install(place, endpoints, only("cursor"))
    assert action.failed and action.manual.startswith(said.format(path=path)), action.manual
    assert '{"mcpServers"' not in action.manual
    assert path.read_bytes() == original
    if b"null" in original:
        assert "mcpServers is null, not an object" in action.note
        pasted = json.loads(action.manual.split("by hand with ", 1)[1])
        assert list(pasted) == [server_name(endpoints.instance)]


def test_codex_top_level_dotted_keys_take_our_table(place: Place, endpoints: Endpoints) -> None:
    """``mcp_servers.docs.command = ...`` defines the container by dotted keys, and a
    [mcp_servers.NAME] table may follow those: install appends it, uninstall takes it back."""
    original = b'model = "o3"\nmcp_servers.docs.command = "d"\nmcp_servers.docs.args = []\n'
    path = write(place, "codex", original)
    apply_all(plan_install(place, endpoints, only("codex")))
    data = tomllib.loads(path.read_text())
    name = server_name(endpoints.instance)
    assert list(data["mcp_servers"]) == ["docs", name]
    assert data["mcp_servers"]["docs"] == {"command": "d", "args": []}
    assert path.read_bytes().startswith(original)
    apply_all(plan_uninstall(place, endpoints, only("codex")))
    assert path.read_bytes() == original


def test_codex_dotted_keys_for_our_own_entry_are_named(place: Place, endpoints: Endpoints) -> None:
    name = server_name(endpoints.instance)
    original = f'mcp_servers.{name}.command = "/old/ghostlight-mcp-connector"\n'.encode()
    path = write(place, "codex", original)
    [action] = plan_install(place, endpoints, only("codex"))
    assert action.failed
    assert f"mcp_servers.{name} is written as dotted keys, not as a [table]" in action.note
    assert f"into a [mcp_servers.{name}] table by hand" in action.manual
    assert path.read_bytes() == original


# -- native hosts --------------------------------------------------------------------------------


def test_ownership_reads_only_the_wrapper_path_tail(
    tmp_path: Path, place: Place, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A data root that itself sits in a directory named ``instances`` is still ours."""
    monkeypatch.setenv("GHOSTLIGHT_HOME", str(tmp_path / "instances" / "gl"))
    endpoints = Endpoints.for_instance()
    options = Options(clients=(), browsers=("chromium",), extension_ids=(EXT_ID,))
    apply_all(plan_install(place, endpoints, options))
    manifest = hosts.read_manifest(hosts.browser("chromium").manifest_path(place))
    assert manifest is not None
    assert hosts.owner_instance(manifest, endpoints) == endpoints.instance
    other = {"path": str(tmp_path / "instances" / "gl" / "instances" / "b" / "native-host"
                         / "installed-browser-connector")}
    assert hosts.owner_instance(other, endpoints) == "b"
    again = plan_install(place, endpoints, options)
    assert all(not a.failed and a.change is not None for a in again)


def test_the_host_program_stays_while_a_manifest_uses_it(place: Place, endpoints: Endpoints) -> None:
    options = Options(clients=(), browsers=("chromium", "brave"), extension_ids=(EXT_ID,))
    apply_all(plan_install(place, endpoints, options))
    apply_all(plan_uninstall(place, endpoints, Options(clients=(), browsers=("chromium",))))
    assert wrapper_path(endpoints).exists()
    assert hosts.browser("brave").manifest_path(place).exists()
    apply_all(plan_uninstall(place, endpoints, Options(clients=(), browsers=("brave",))))
    assert not wrapper_path(endpoints).exists()


def test_a_host_owned_by_another_instance_writes_no_program(
    place: Place, endpoints: Endpoints
) -> None:
    first = Endpoints.for_instance(endpoints.instance + "-a")
    options = Options(clients=(), browsers=("chromium",), extension_ids=(EXT_ID,))
    apply_all(plan_install(place, first, options))
    actions = plan_install(place, endpoints, options)
    assert not any(a.change is not None for a in actions)
    assert any(a.failed and "no browser gets a manifest" in a.note for a in actions)
    with_client = plan_install(
        place, endpoints, Options(clients=("cursor",), browsers=("chromium",), extension_ids=(EXT_ID,))
    )
    assert not any(a.failed for a in with_client)  # the client registration still counts


# -- command line and size -------------------------------------------------------------------------


def args(**overrides) -> argparse.Namespace:
    values = dict(
        dry_run=False, client=None, no_clients=False, browser=None, extension_id=None,
        autostart=False, wait=0,
    )
    return argparse.Namespace(**{**values, **overrides})


def test_client_and_no_clients_is_a_usage_error(endpoints: Endpoints, capsys) -> None:
    code = install_command.run(endpoints, args(client=["cursor"], no_clients=True), installing=True)
    assert code == 2 and "--no-clients" in capsys.readouterr().err


def test_wait_in_a_dry_run_says_it_is_ignored(place: Place, endpoints: Endpoints, capsys) -> None:
    code = install_command.run(
        endpoints, args(dry_run=True, wait=5, no_clients=True, browser=["chromium"]), installing=True
    )
    assert code == 0 and "--wait is ignored in a dry run" in capsys.readouterr().out


def test_a_config_of_megabytes_is_edited_quickly() -> None:
    projects = {f"/p{i}": {"history": [{"display": "x" * 200}] * 40, "mcpServers": {}} for i in range(500)}
    text = json.dumps({"mcpServers": {}, "projects": projects}, indent=2) + "\n"
    assert len(text) > 4_000_000
    started = time.monotonic()
    jsonc.loads(text)
    edited = jsonc.set_member(text, ["mcpServers"], "ghostlight", {"command": "x"})
    assert jsonc.remove_member(edited, ["mcpServers"], "ghostlight") == text
    assert time.monotonic() - started < 1.5


@pytest.mark.skipif(os.name != "posix", reason="POSIX modes")
def test_backups_and_modes_survive_a_crlf_round_trip(place: Place, endpoints: Endpoints) -> None:
    original = b'{\r\n  "mcpServers": {}\r\n}\r\n'
    path = write(place, "cursor", original)
    path.chmod(0o640)
    apply_all(plan_install(place, endpoints, only("cursor")))
    [backup] = path.parent.glob("mcp.json.ghostlight-backup-*")
    assert backup.read_bytes() == original
    assert path.stat().st_mode & 0o777 == 0o640
