"""Turn install/uninstall options into a list of actions, each one file change or a note.

Planning reads files but writes nothing, so ``--dry-run`` shows exactly what applying does.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol, TypeVar

import attrs

from ..install.client_configs import entry_argv, server_entry
from ..transport.endpoints import DEFAULT_INSTANCE, Endpoints
from . import autostart, clients, hosts, ledger
from .changes import FileChange, UnreadableFile, read_text
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
    # Why ``extension_ids`` is empty (the package carries no extension): browsers then get no
    # native host, and the installer says so, but MCP clients are still registered.
    extension_problem: str = ""


class _Target(Protocol):
    @property
    def id(self) -> str: ...

    def detected(self, place: Place) -> bool: ...


_T = TypeVar("_T", bound=_Target)


def _selected(ids: tuple[str, ...] | None, targets: tuple[_T, ...], place: Place) -> list[_T]:
    if ids is None:
        return [t for t in targets if t.detected(place)]
    return [t for t in targets if t.id in ids]


def plan_install(place: Place, endpoints: Endpoints, options: Options) -> list[Action]:
    actions: list[Action] = []
    name = server_name(endpoints.instance)
    mcp = find_executable(MCP_CONNECTOR)
    store = ledger.store_for(endpoints.data_dir)
    chosen_clients = _selected(options.clients, clients.CLIENTS, place)
    for target in chosen_clients:
        label = f"{target.label}: {target.path(place)} ({'.'.join(target.container)}.{name})"
        if mcp is None:
            actions.append(Action(label, failed=True, note=f"{MCP_CONNECTOR} not found"))
            continue
        entry = server_entry(target.dialect, str(mcp), connector_args(endpoints), pinned_env())
        actions.append(_client_action(target, place, name, entry, label, store))
    if options.clients is None and not chosen_clients:
        actions.append(Action("MCP clients", note="none detected; name one with --client"))
    actions += _host_actions(place, endpoints, options, registered=_registers(actions))
    if options.autostart:
        path = autostart.autostart_path(place, endpoints.instance)
        text = autostart.autostart_text(place, endpoints)
        actions.append(
            _own_file(
                f"Autostart: {path}", path, text, 0o644,
                manual=f"enable it: {autostart.activation_hint(place, endpoints.instance)}",
            )
        )
    return actions


def _registers(actions: list[Action]) -> bool:
    """Some action registers Ghostlight somewhere (or finds it already registered)."""
    return any(a.change is not None and not a.failed for a in actions)


def _own_file(label: str, path: Path, text: str, mode: int, manual: str = "") -> Action:
    """A file wholly ours (wrapper, unit): written without a backup."""
    try:
        before = read_text(path)
    except UnreadableFile as exc:
        return Action(label, failed=True, note=str(exc), manual=f"remove {path}, then run it again")
    return Action(label, FileChange(path, before, text, mode, backup=False), manual=manual)


def _client_action(
    target: clients.ClientTarget, place: Place, name: str, entry: Any, label: str, store: Path
) -> Action:
    path = target.path(place)
    try:
        existing = clients.current_entry(target, place, name)
        if existing is not None and not _runs_ours(target, existing):
            argv = entry_argv(target.dialect, existing) or ["no command"]
            return Action(
                label, failed=True,
                note=f"{name!r} is already there and runs {argv[0]}, not {MCP_CONNECTOR}; left alone",
                manual=f"remove or rename that entry in {path}, then run it again",
            )
        change = clients.plan_entry(target, place, name, entry, store)
    except clients.EditRefused as exc:
        by_hand = clients.manual_step(target, place, name, entry)
        manual = f"{exc.manual}; or {by_hand}" if exc.manual else by_hand
        return Action(label, failed=True, note=str(exc), manual=manual)
    if change.changes_anything:
        return Action(label, change)
    off = _switched_off(existing)
    kept = f"; switched off there ({off}), which install leaves to you" if off else ""
    return Action(label, change, note=f"already registered{kept}")


def _switched_off(entry: Any) -> str:
    """The user's own switch that turns the entry off, as written ("" when it is on)."""
    if not isinstance(entry, dict):
        return ""
    for key, off in (("disabled", True), ("enabled", False)):
        if entry.get(key) is off:
            return f"{key}: {str(off).lower()}"
    return ""


def _runs_ours(target: clients.ClientTarget, entry: Any) -> bool:
    """The entry runs our connector (or runs nothing we can tell, which we may replace)."""
    argv = entry_argv(target.dialect, entry) or []
    return not argv or MCP_CONNECTOR in Path(argv[0]).name


def _host_actions(
    place: Place, endpoints: Endpoints, options: Options, *, registered: bool
) -> list[Action]:
    chosen = _selected(options.browsers, hosts.BROWSERS, place)
    if not chosen:
        note = "none detected; name one with --browser" if options.browsers is None else "none"
        return [Action("Browsers", note=note)] if options.browsers is None else []
    if not options.extension_ids:
        return [_no_extension(chosen, options, registered=registered)]
    connector = find_executable(BROWSER_CONNECTOR)
    if connector is None:
        return [Action("Native host", failed=True, note=f"{BROWSER_CONNECTOR} not found")]
    program: Path = wrapper_path(endpoints) if needs_wrapper(endpoints) else connector
    ids = list(options.extension_ids)
    manifests: list[Action] = []
    for target in chosen:
        label = f"{target.label}: {target.manifest_path(place)}"
        try:
            change, why = hosts.plan_manifest(target, place, endpoints, program, ids)
        except UnreadableFile as exc:
            manifests.append(Action(label, failed=True, note=str(exc)))
            continue
        manifests.append(Action(label, change, note=why))
    if not any(a.change is not None for a in manifests):
        note = "no browser gets a manifest for this instance, so no host program is written"
        return [*manifests, Action("Native host", failed=not registered, note=note)]
    if needs_wrapper(endpoints):
        text = wrapper_script(endpoints, connector)
        return [_own_file(f"Native host program: {program}", program, text, 0o700), *manifests]
    return manifests


def _no_extension(
    chosen: list[hosts.BrowserTarget], options: Options, *, registered: bool
) -> Action:
    """No extension id to allow: no browser can get a native host manifest. A failure when
    browsers were asked for by name or nothing else was registered; otherwise the clients
    were the point, and this is a step left for later."""
    why = options.extension_problem or "no extension id is known"
    names = ", ".join(target.label for target in chosen)
    return Action(
        "Browsers",
        failed=options.browsers is not None or not registered,
        note=f"no native host registered for {names}: {why}",
        manual=(
            "reinstall ghostlight-trio from a wheel or source tree that carries the extension and"
            " run `ghostlight install` again, or name the id of the Ghostlight extension you"
            " loaded with `ghostlight install --extension-id ID`"
        ),
    )


def plan_uninstall(place: Place, endpoints: Endpoints, options: Options) -> list[Action]:
    """Take back what install registered: all of it, or only what ``--client``/``--browser``
    name. Naming clients leaves the browsers' native host (other clients still reach the
    service through it) and the autostart alone; naming browsers leaves the clients alone."""
    actions: list[Action] = []
    name = server_name(endpoints.instance)
    store = ledger.store_for(endpoints.data_dir)
    clients_named, browsers_named = bool(options.clients), bool(options.browsers)
    if options.clients is not None:
        ids = options.clients
    else:
        ids = () if browsers_named else clients.CLIENT_IDS
    for target in (c for c in clients.CLIENTS if c.id in ids):
        label = f"{target.label}: {target.path(place)} ({'.'.join(target.container)}.{name})"
        by_hand = f"remove {name!r} from {target.path(place)} by hand, if it is there"
        try:
            entry = clients.current_entry(target, place, name)
        except clients.EditRefused as exc:
            actions.append(Action(label, failed=True, note=str(exc), manual=by_hand))
            continue
        if entry is None:
            if options.clients is not None:
                actions.append(Action(f"{target.label}: {target.path(place)}", note="not registered"))
            continue
        if not _runs_ours(target, entry):
            argv = entry_argv(target.dialect, entry) or []
            actions.append(Action(label, note=f"not ours (runs {argv[0]}); left alone"))
            continue
        try:
            actions.append(Action(label, clients.plan_entry(target, place, name, None, store)))
        except clients.EditRefused as exc:
            manual = f"{exc.manual}; or {by_hand}" if exc.manual else by_hand
            actions.append(Action(label, failed=True, note=str(exc), manual=manual))
    if clients_named and not browsers_named:
        if _host_installed(place, endpoints):
            actions.append(
                Action(
                    "Browsers",
                    note=(
                        "native host kept: your browser's extension reaches the service through"
                        " it for every other MCP client; remove it with `ghostlight uninstall"
                        f" --browser ID{_instance_flag(endpoints)}` or a full `ghostlight"
                        f" uninstall{_instance_flag(endpoints)}`"
                    ),
                )
            )
    else:
        actions += _host_removals(place, endpoints, options)
    if clients_named or browsers_named:
        return actions
    path = autostart.autostart_path(place, endpoints.instance)
    before = _readable(path)
    if before is not None:
        # Said for after the file is gone (the step is printed after it is removed): systemd
        # still stops a unit it has loaded, launchd boots an agent out by its label.
        hint = (
            f"systemctl --user stop {autostart.unit_name(endpoints.instance)}"
            " && systemctl --user daemon-reload"
            if place.platform != "darwin"
            else f"launchctl bootout gui/$(id -u)/{autostart.agent_label(endpoints.instance)}"
        )
        actions.append(
            Action(
                f"Autostart: {path}",
                FileChange(path, before, None, backup=False),
                manual=(
                    "with the file gone the service no longer starts at login; to stop the one"
                    f" running now: {hint}"
                ),
            )
        )
    return actions


def _host_installed(place: Place, endpoints: Endpoints) -> bool:
    """A browser has this instance's native host manifest, or its host program is there."""
    if wrapper_path(endpoints).exists():
        return True
    for target in hosts.BROWSERS:
        manifest = hosts.read_manifest(target.manifest_path(place))
        if manifest and hosts.owner_instance(manifest, endpoints) == endpoints.instance:
            return True
    return False


def _instance_flag(endpoints: Endpoints) -> str:
    return "" if endpoints.instance == DEFAULT_INSTANCE else f" --instance {endpoints.instance}"


def _readable(path: Path) -> str | None:
    try:
        return read_text(path)
    except UnreadableFile:
        return None


def _host_removals(place: Place, endpoints: Endpoints, options: Options) -> list[Action]:
    """Our manifests, then the host program, kept while a manifest still points at it."""
    actions: list[Action] = []
    removed: set[str] = set()
    browser_ids = options.browsers if options.browsers is not None else hosts.BROWSER_IDS
    for target in (b for b in hosts.BROWSERS if b.id in browser_ids):
        label = f"{target.label}: {target.manifest_path(place)}"
        try:
            change, why = hosts.plan_manifest(target, place, endpoints, Path(), [], remove=True)
        except UnreadableFile as exc:
            actions.append(Action(label, failed=True, note=str(exc)))
            continue
        if change is not None and change.after is None:
            removed.add(target.id)
        if change is not None and not change.changes_anything and options.browsers is None:
            continue
        actions.append(Action(label, change, note=why))
    program = wrapper_path(endpoints)
    before = _readable(program)
    if before is None:
        return actions
    label = f"Native host program: {program}"
    users = [
        b.label for b in hosts.BROWSERS
        if b.id not in removed and _points_at(hosts.read_manifest(b.manifest_path(place)), program)
    ]
    if users:
        return [*actions, Action(label, note=f"still used by the {', '.join(users)} manifest; left alone")]
    return [*actions, Action(label, FileChange(program, before, None, backup=False))]


def _points_at(manifest: dict[str, Any] | None, program: Path) -> bool:
    return manifest is not None and str(manifest.get("path", "")) == str(program)
