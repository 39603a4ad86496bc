"""Turn install/uninstall options into a list of actions, each one file change or a note.

Planning reads files but writes nothing, so ``--dry-run`` shows exactly what applying does.
"""

from __future__ import annotations

from pathlib import Path

import attrs

from ..transport.client_configs import entry_argv, server_entry
from ..transport.endpoints import Endpoints
from . import autostart, clients, hosts
from .changes import FileChange, read_text
from .identity import (
    BROWSER_CONNECTOR,
    MCP_CONNECTOR,
    connector_args,
    find_executable,
    needs_wrapper,
    pinned_env,
    server_name,
    wrapper_path,
    wrapper_script,
)
from .places import Place


@attrs.frozen
class Action:
    """One line of the installer's report: a change to make, or why nothing is made."""

    label: str
    change: FileChange | None = None
    note: str = ""
    manual: str = ""
    failed: bool = False


@attrs.frozen
class Options:
    clients: tuple[str, ...] | None = None  # None: every detected client
    browsers: tuple[str, ...] | None = None  # None: every detected browser
    autostart: bool = False
    extension_ids: tuple[str, ...] = ()


def _selected(ids: tuple[str, ...] | None, targets, place: Place) -> list:
    if ids is None:
        return [t for t in targets if t.detected(place)]
    return [t for t in targets if t.id in ids]


def plan_install(place: Place, endpoints: Endpoints, options: Options) -> list[Action]:
    actions: list[Action] = []
    name = server_name(endpoints.instance)
    mcp = find_executable(MCP_CONNECTOR)
    chosen_clients = _selected(options.clients, clients.CLIENTS, place)
    for target in chosen_clients:
        label = f"{target.label}: {target.path(place)} ({'.'.join(target.container)}.{name})"
        if mcp is None:
            actions.append(Action(label, failed=True, note=f"{MCP_CONNECTOR} not found"))
            continue
        entry = server_entry(target.dialect, str(mcp), connector_args(endpoints), pinned_env())
        actions.append(_client_action(target, place, name, entry, label))
    if options.clients is None and not chosen_clients:
        actions.append(Action("MCP clients", note="none detected; name one with --client"))
    actions += _host_actions(place, endpoints, options)
    if options.autostart:
        path = autostart.autostart_path(place, endpoints.instance)
        text = autostart.autostart_text(place, endpoints)
        change = FileChange(path, read_text(path), text, 0o644, backup=False)
        actions.append(
            Action(
                f"Autostart: {path}", change,
                manual=f"enable it: {autostart.activation_hint(place, endpoints.instance)}",
            )
        )
    return actions


def _client_action(target, place: Place, name: str, entry, label: str) -> Action:
    try:
        change = clients.plan_entry(target, place, name, entry)
    except clients.EditRefused as exc:
        return Action(label, failed=True, note=str(exc), manual=f"add {entry} by hand")
    return Action(label, change, note="" if change.changes_anything else "already registered")


def _host_actions(place: Place, endpoints: Endpoints, options: Options) -> list[Action]:
    chosen = _selected(options.browsers, hosts.BROWSERS, place)
    if not chosen:
        note = "none detected; name one with --browser" if options.browsers is None else "none"
        return [Action("Browsers", note=note)] if options.browsers is None else []
    connector = find_executable(BROWSER_CONNECTOR)
    if connector is None:
        return [Action("Native host", failed=True, note=f"{BROWSER_CONNECTOR} not found")]
    actions: list[Action] = []
    program: Path = connector
    if needs_wrapper(endpoints):
        program = wrapper_path(endpoints)
        text = wrapper_script(endpoints, connector)
        change = FileChange(program, read_text(program), text, mode=0o700, backup=False)
        actions.append(Action(f"Native host program: {program}", change))
    ids = list(options.extension_ids)
    for target in chosen:
        change, why = hosts.plan_manifest(target, place, endpoints, program, ids)
        label = f"{target.label}: {target.manifest_path(place)}"
        actions.append(Action(label, change, note=why))
    return actions


def plan_uninstall(place: Place, endpoints: Endpoints, options: Options) -> list[Action]:
    actions: list[Action] = []
    name = server_name(endpoints.instance)
    ids = options.clients if options.clients is not None else clients.CLIENT_IDS
    for target in (c for c in clients.CLIENTS if c.id in ids):
        parsed, entry = clients.read_entry(target, place, name)
        if entry is None:
            if options.clients is not None:
                actions.append(Action(f"{target.label}: {target.path(place)}", note="not registered"))
            continue
        label = f"{target.label}: {target.path(place)} ({'.'.join(target.container)}.{name})"
        argv = entry_argv(target.dialect, entry) or []
        if argv and MCP_CONNECTOR not in Path(argv[0]).name:
            actions.append(Action(label, note=f"not ours (runs {argv[0]}); left alone"))
            continue
        try:
            actions.append(Action(label, clients.plan_entry(target, place, name, None)))
        except clients.EditRefused as exc:
            actions.append(Action(label, failed=True, note=str(exc), manual="remove it by hand"))
    browser_ids = options.browsers if options.browsers is not None else hosts.BROWSER_IDS
    for target in (b for b in hosts.BROWSERS if b.id in browser_ids):
        change, why = hosts.plan_manifest(
            target, place, endpoints, Path(), [], remove=True
        )
        if change is not None and not change.changes_anything and options.browsers is None:
            continue
        actions.append(Action(f"{target.label}: {target.manifest_path(place)}", change, note=why))
    program = wrapper_path(endpoints)
    before = read_text(program)
    if before is not None:
        actions.append(Action(f"Native host program: {program}", FileChange(program, before, None, backup=False)))
    path = autostart.autostart_path(place, endpoints.instance)
    before = read_text(path)
    if before is not None:
        hint = (
            f"systemctl --user disable --now {autostart.unit_name(endpoints.instance)}"
            if place.platform != "darwin"
            else f"launchctl bootout gui/$(id -u)/{autostart.agent_label(endpoints.instance)}"
        )
        actions.append(
            Action(
                f"Autostart: {path}",
                FileChange(path, before, None, backup=False),
                manual=f"first: {hint}",
            )
        )
    return actions
