"""The file-level links doctor checks: executables, private files, registrations, manifests.

Each check returns ``Check`` rows; none of them writes anything or talks to the service.
"""

from __future__ import annotations

import os
import shlex
import shutil
import stat
from pathlib import Path
from typing import Literal

import attrs

from ..install import clients, hosts
from ..install.identity import (
    BROWSER_CONNECTOR,
    MCP_CONNECTOR,
    find_executable,
    server_name,
    wrapper_path,
)
from ..install.places import Place
from ..transport.client_configs import entry_argv, entry_env
from ..transport.endpoints import INSTANCE_ENV, Endpoints
from ..transport.native_host import NATIVE_HOST_NAME

Verdict = Literal["ok", "warn", "fail", "info", "skip"]


@attrs.frozen
class Check:
    section: str
    name: str
    verdict: Verdict
    detail: str
    fix: str = ""


def _executable(path: str | Path) -> bool:
    return Path(path).is_file() and os.access(path, os.X_OK)


def executables() -> list[Check]:
    rows = []
    for name in ("ghostlight", MCP_CONNECTOR, BROWSER_CONNECTOR):
        on_path = shutil.which(name)
        found = find_executable(name)
        if on_path:
            rows.append(Check("package", name, "ok", f"on PATH: {on_path}"))
        elif found:
            rows.append(
                Check(
                    "package", name, "warn", f"not on PATH; found at {found}",
                    f"add {found.parent} to PATH (registrations use the absolute path anyway)",
                )
            )
        else:
            rows.append(
                Check("package", name, "fail", "not installed", "reinstall: pip install ghostlight-trio")
            )
    return rows


_KINDS = {"file": stat.S_ISREG, "socket": stat.S_ISSOCK, "directory": stat.S_ISDIR}


def _kind_of(mode: int) -> str:
    return next((kind for kind, test in _KINDS.items() if test(mode)), "special file")


def _close_fix(path: Path, kind: str, restart: str, replace: bool) -> str:
    quoted = shlex.quote(str(path))
    if replace:  # others may have read it: a fresh one, not the same one closed
        return f"rm {quoted} && {restart}  (the service makes a fresh one)"
    return f"chmod {'700' if kind == 'directory' else '600'} {quoted}"


def private_file(
    section: str,
    name: str,
    path: Path,
    *,
    kind: str,
    required: bool,
    missing_hint: str,
    replace_if_open: bool = False,
) -> Check:
    """A file, socket or directory that must be one, belong to this user and be closed to
    everyone else. ``missing_hint`` is the command that makes it again (a restart);
    ``replace_if_open``: a secret others could read is replaced, not just closed."""
    try:
        info = path.stat()
    except FileNotFoundError:
        verdict: Verdict = "fail" if required else "info"
        return Check(section, name, verdict, f"absent: {path}", missing_hint if required else "")
    except OSError as exc:
        return Check(section, name, "fail", f"{path}: {exc}", "check the directory permissions")
    if not _KINDS[kind](info.st_mode):
        return Check(
            section, name, "fail", f"{path} is a {_kind_of(info.st_mode)}, not a {kind}",
            f"remove it (`rm -r {shlex.quote(str(path))}`) and restart: {missing_hint}",
        )
    if info.st_uid != os.getuid():
        return Check(
            section, name, "fail", f"{path} is owned by uid {info.st_uid}, not by you",
            f"remove it (`rm {shlex.quote(str(path))}`) and restart: {missing_hint}",
        )
    mode = stat.S_IMODE(info.st_mode)
    if mode & 0o077:
        return Check(
            section, name, "fail", f"{path} has mode {mode:04o}; others can reach it",
            _close_fix(path, kind, missing_hint, replace_if_open),
        )
    return Check(section, name, "ok", f"{path} (mode {mode:04o}, yours)")


def registrations(place: Place, endpoints: Endpoints) -> list[Check]:
    name = server_name(endpoints.instance)
    rows: list[Check] = []
    registered = 0
    for target in clients.CLIENTS:
        path = target.path(place)
        fix = f"ghostlight install --client {target.id}{_instance_flag(endpoints)}"
        parsed, entry = clients.read_entry(target, place, name)
        if not parsed:
            detail = clients.read_problem(target, place) or f"{path} does not parse"
            rows.append(Check("clients", target.label, "fail", detail, f"repair or remove {path}"))
            continue
        if entry is None:
            if target.detected(place):
                rows.append(Check("clients", target.label, "warn", f"detected, not registered ({path})", fix))
            else:
                rows.append(Check("clients", target.label, "skip", "not detected"))
            continue
        argv = entry_argv(target.dialect, entry)
        if not argv:
            rows.append(Check("clients", target.label, "fail", f"entry {name!r} runs no command", fix))
            continue
        if not _executable(argv[0]):
            rows.append(
                Check("clients", target.label, "fail", f"stale path: {argv[0]} does not exist", fix)
            )
            continue
        if not _targets_instance(argv, entry_env(target.dialect, entry), endpoints.instance):
            rows.append(Check("clients", target.label, "fail", f"{name!r} runs another instance", fix))
            continue
        registered += 1
        rows.append(Check("clients", target.label, "ok", f"{name} -> {shlex.join(argv)}"))
    if not registered:
        rows.append(
            Check(
                "clients", "any client", "fail", f"no MCP client has {name!r} registered",
                f"ghostlight install{_instance_flag(endpoints)} (or --client ID)",
            )
        )
    return rows


def _targets_instance(argv: list[str], env: dict[str, str], instance: str) -> bool:
    named = None
    if "--instance" in argv[1:]:
        index = argv.index("--instance")
        named = argv[index + 1] if index + 1 < len(argv) else None
    named = named or env.get(INSTANCE_ENV) or "default"
    return named == instance


def manifests(place: Place, endpoints: Endpoints, extension_id: str) -> list[Check]:
    rows: list[Check] = []
    good = 0
    for target in hosts.BROWSERS:
        path = target.manifest_path(place)
        fix = f"ghostlight install --browser {target.id}{_instance_flag(endpoints)}"
        manifest = hosts.read_manifest(path)
        if manifest is None:
            if target.detected(place):
                rows.append(Check("browsers", target.label, "warn", f"no native host manifest at {path}", fix))
            else:
                rows.append(Check("browsers", target.label, "skip", "not detected"))
            continue
        if manifest.get("name") != NATIVE_HOST_NAME:
            rows.append(Check("browsers", target.label, "fail", f"{path} is not a valid manifest", fix))
            continue
        owner = hosts.owner_instance(manifest, endpoints)
        if owner is not None and owner != endpoints.instance:
            rows.append(Check("browsers", target.label, "info", f"native host serves instance {owner!r}"))
            continue
        program = str(manifest.get("path", ""))
        problem = _program_problem(program, endpoints)
        if problem:
            rows.append(Check("browsers", target.label, "fail", problem, fix))
            continue
        origin = f"chrome-extension://{extension_id}/"
        if origin not in manifest.get("allowed_origins", []):
            rows.append(
                Check("browsers", target.label, "fail", f"{path} does not allow extension {extension_id}", fix)
            )
            continue
        good += 1
        rows.append(Check("browsers", target.label, "ok", f"{path} -> {program}"))
    if not good:
        rows.append(
            Check(
                "browsers", "any browser", "fail", "the native host is not registered for any browser",
                f"ghostlight install{_instance_flag(endpoints)} (or --browser chrome|chromium|edge|brave)",
            )
        )
    return rows


def _program_problem(program: str, endpoints: Endpoints) -> str:
    if not _executable(program):
        return f"stale path: host program {program or '(none)'} does not exist"
    if Path(program) == wrapper_path(endpoints):
        for line in Path(program).read_text(encoding="utf-8", errors="replace").splitlines():
            if line.startswith("exec "):
                target = shlex.split(line)[1]
                if not _executable(target):
                    return f"stale path: wrapper {program} runs {target}, which does not exist"
    return ""


def _instance_flag(endpoints: Endpoints) -> str:
    return "" if endpoints.instance == "default" else f" --instance {endpoints.instance}"
