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

from ..browser import managed
from ..browser.discovery import installed_browsers
from ..install import clients, hosts
from ..install.client_configs import entry_argv, entry_env
from ..install.identity import (
    BROWSER_CONNECTOR,
    MCP_CONNECTOR,
    bare_data_root,
    effective_data_root,
    find_executable,
    pinned_env,
    same_root,
    server_name,
    wrapper_path,
)
from ..install.places import Place
from ..transport.endpoints import HOME_ENV, INSTANCE_ENV, Endpoints
from ..transport.native_host import NATIVE_HOST_NAME
from .arguments import instance_flag
from .wording import os_problem

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


def browsers_found() -> list[Check]:
    """The Chromium-family browsers found here (on PATH and where they install): the first is
    the one ``demo`` and ``browser launch`` start unless told ``--browser-path``."""
    found = installed_browsers()
    if not found:
        return [
            Check(
                "browsers", "managed browser", "warn",
                "no Chromium-family browser found on PATH or where Chrome, Chromium, Edge and"
                " Brave install",
                "apt install chromium (or pass --browser-path PATH to demo and browser launch)",
            )
        ]  # fmt: skip
    rows = [Check("browsers", "managed browser", "ok", f"{found[0]} (demo and browser launch)")]
    rows += [Check("browsers", "also found", "info", str(path)) for path in found[1:]]
    return rows


_KINDS = {"file": stat.S_ISREG, "socket": stat.S_ISSOCK, "directory": stat.S_ISDIR}


def _kind_of(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "symbolic link"
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
        info = path.lstat()  # as the service opens it: a link is never followed
    except FileNotFoundError:
        verdict: Verdict = "fail" if required else "info"
        return Check(section, name, verdict, f"absent: {path}", missing_hint if required else "")
    except OSError as exc:
        return Check(section, name, "fail", os_problem(exc), "check the directory permissions")
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
    if kind == "file" and info.st_nlink > 1:  # the service refuses it: it is another file too
        return Check(
            section, name, "fail", f"{path} has {info.st_nlink - 1} other name(s) (hard links)",
            f"remove it (`rm {shlex.quote(str(path))}`) and restart: {missing_hint}",
        )
    mode = stat.S_IMODE(info.st_mode)
    if mode & 0o077:
        return Check(
            section, name, "fail", f"{path} has mode {mode:04o}; others can reach it",
            _close_fix(path, kind, missing_hint, replace_if_open),
        )
    return Check(section, name, "ok", f"{path} (mode {mode:04o}, yours)")


def secret_file(endpoints: Endpoints, *, required: bool) -> Check:
    """The anti-squat secret: a file of this user's that nobody else can read. One others may
    have read is replaced (removed, then a restart makes a fresh one), not just closed."""
    return private_file(
        "service", "anti-squat secret", endpoints.secret_file, kind="file", required=required,
        missing_hint=f"ghostlight service restart{instance_flag(endpoints)}", replace_if_open=True,
    )


def secret_fix(endpoints: Endpoints) -> str:
    """How to replace a secret no service can use: remove it, and a restart makes a fresh one."""
    restart = f"ghostlight service restart{instance_flag(endpoints)}"
    return _close_fix(endpoints.secret_file, "file", restart, replace=True)


def registrations(place: Place, endpoints: Endpoints) -> list[Check]:
    name = server_name(endpoints.instance)
    rows: list[Check] = []
    registered = 0
    for target in clients.CLIENTS:
        path = target.path(place)
        fix = f"ghostlight install --client {target.id}{instance_flag(endpoints)}"
        parsed, entry = clients.read_entry(target, place, name)
        if not parsed:
            detail = clients.read_problem(target, place) or f"{path} does not parse"
            rows.append(Check("clients", target.label, "fail", detail, f"repair or remove {path}"))
            continue
        if entry is None:
            rows.append(_absent("clients", target, place, f"detected, not registered ({path})", fix))
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
        env = entry_env(target.dialect, entry)
        if not _targets_instance(argv, env, endpoints.instance):
            rows.append(Check("clients", target.label, "fail", f"{name!r} runs another instance", fix))
            continue
        theirs = effective_data_root(env, place.home)
        mismatch = _root_mismatch(theirs, endpoints, pinned=bool(env.get(HOME_ENV)))
        if mismatch:
            rows.append(Check("clients", target.label, "fail", mismatch, _repin_fix(fix, endpoints)))
            continue
        registered += 1
        rows.append(Check("clients", target.label, "ok", f"{name} -> {shlex.join(argv)}"))
    if not registered:
        rows.append(
            Check(
                "clients", "any client", "fail", f"no MCP client has {name!r} registered",
                f"ghostlight install{instance_flag(endpoints)} (or --client ID)",
            )
        )
    return rows


def own_data_root(endpoints: Endpoints) -> Path:
    """The data root this process uses (``<root>/instances/NAME`` is the instance's)."""
    return endpoints.data_dir.parents[1]


def _root_mismatch(theirs: Path, endpoints: Endpoints, *, pinned: bool) -> str:
    """Why a process started from a registration would use another data root than this
    shell (another secret, another service), or "" when it uses the same one."""
    ours = own_data_root(endpoints)
    if same_root(theirs, ours):
        return ""
    how = (
        f"its {HOME_ENV} pins {theirs}"
        if pinned
        else f"it sets no {HOME_ENV}, so it uses {theirs} (the default for a process started"
        " with HOME alone, as clients and browsers start it)"
    )
    return (
        f"another data root: {how}, but here it is {ours} ({_why_ours()}); it would reach"
        " another service, with another secret"
    )


def _why_ours() -> str:
    if os.environ.get(HOME_ENV):
        return f"{HOME_ENV} is set"
    if os.environ.get("XDG_DATA_HOME"):
        return "XDG_DATA_HOME is set"
    return "the default"


def _repin_fix(fix: str, endpoints: Endpoints) -> str:
    pinned = pinned_env().get(HOME_ENV)
    here = (
        f"pins {HOME_ENV}={pinned}"
        if pinned
        else f"registers the default data root, {own_data_root(endpoints)}"
    )
    return f"{fix}  (in the environment whose data root you want; run here, it {here})"


def _targets_instance(argv: list[str], env: dict[str, str], instance: str) -> bool:
    named = None
    if "--instance" in argv[1:]:
        index = argv.index("--instance")
        named = argv[index + 1] if index + 1 < len(argv) else None
    named = named or env.get(INSTANCE_ENV) or "default"
    return named == instance


def _absent(
    area: str, target: clients.ClientTarget | hosts.BrowserTarget, place: Place, missing: str, fix: str
) -> Check:
    """A client or browser without our entry: a warning when it is installed, else a skip."""
    if target.detected(place):
        return Check(area, target.label, "warn", missing, fix)
    return Check(area, target.label, "skip", "not detected")


def manifests(place: Place, endpoints: Endpoints, extension_id: str) -> list[Check]:
    rows: list[Check] = []
    good = 0
    others: list[tuple[str, str]] = []  # (browser, instance) where another's host is in place
    for target in hosts.BROWSERS:
        path = target.manifest_path(place)
        fix = f"ghostlight install --browser {target.id}{instance_flag(endpoints)}"
        manifest = hosts.read_manifest(path)
        if manifest is None:
            rows.append(_absent("browsers", target, place, f"no native host manifest at {path}", fix))
            continue
        if manifest.get("name") != NATIVE_HOST_NAME:
            rows.append(Check("browsers", target.label, "fail", f"{path} is not a valid manifest", fix))
            continue
        owner = hosts.owner_instance(manifest, endpoints)
        if owner is not None and owner != endpoints.instance:
            others.append((target.label, owner))
            rows.append(Check("browsers", target.label, "info", f"native host serves instance {owner!r}"))
            continue
        program = str(manifest.get("path", ""))
        problem = _program_problem(program, endpoints)
        if problem:
            rows.append(Check("browsers", target.label, "fail", problem, fix))
            continue
        theirs, pinned = _host_data_root(program, place)
        mismatch = _root_mismatch(theirs, endpoints, pinned=pinned)
        if mismatch:
            detail = f"native host: {mismatch}"
            rows.append(Check("browsers", target.label, "fail", detail, _repin_fix(fix, endpoints)))
            continue
        origin = f"chrome-extension://{extension_id}/"
        if origin not in manifest.get("allowed_origins", []):
            rows.append(
                Check("browsers", target.label, "fail", f"{path} does not allow extension {extension_id}", fix)
            )
            continue
        good += 1
        rows.append(Check("browsers", target.label, "ok", f"{path} -> {program}"))
    if not good and others:
        # The extension connects to one host per browser, and these browsers' host is another
        # instance's: installing again changes nothing. A managed browser is this instance's way.
        held = ", ".join(f"{label} (instance {owner!r})" for label, owner in others)
        launch = f"ghostlight browser launch --instance {endpoints.instance}"
        rows.append(
            Check(
                "browsers", "any browser", "warn",
                f"another instance's native host is in place in {held}, and a browser has only"
                f" one; this instance gets a managed browser of its own with `{launch}`",
                f"{launch} (or, to move your own browser over to this instance: ghostlight"
                f" uninstall --browser ID --instance {others[0][1]}, then ghostlight install"
                f"{instance_flag(endpoints)})",
            )
        )
    elif not good and (managed_pid := managed_browser_running(endpoints)) is not None:
        # The managed browser registers the host in its own profile: this instance has a
        # working browser, only the user's own browsers are not wired in.
        rows.append(
            Check(
                "browsers", "any browser", "warn",
                "the native host is not registered for any of your own browsers; the managed"
                f" browser of this instance (pid {managed_pid}) has its own in its profile, so"
                " Ghostlight works there",
                f"to drive your own browser too: ghostlight install{instance_flag(endpoints)}"
                " (or --browser chrome|chromium|edge|brave)",
            )
        )
    elif not good and (profile := managed_browser_stopped(endpoints)) is not None:
        # A managed browser was this instance's way to a browser, and it is not running now:
        # installing would not bring it back; launching it again does.
        rows.append(
            Check(
                "browsers", "any browser", "fail",
                f"the managed browser of this instance is not running (profile {profile}), and"
                " none of your own browsers has the native host",
                f"{relaunch_command(endpoints)} (or, to drive your own browser:"
                f" ghostlight install{instance_flag(endpoints)})",
            )
        )
    elif not good:
        rows.append(
            Check(
                "browsers", "any browser", "fail", "the native host is not registered for any browser",
                f"ghostlight install{instance_flag(endpoints)} (or --browser chrome|chromium|edge|brave)",
            )
        )
    return rows


def managed_browser_stopped(endpoints: Endpoints) -> Path | None:
    """The profile of this instance's managed browser when one was set up (its native host is
    registered there) but no browser runs it now, else None."""
    profile = _managed_profile(endpoints)
    return profile if profile is not None and managed.profile_in_use(profile) is None else None


def relaunch_command(endpoints: Endpoints) -> str:
    return f"ghostlight browser launch --instance {endpoints.instance} (headless where there is no screen)"


def managed_browser_running(endpoints: Endpoints) -> int | None:
    """The pid of this instance's managed browser (``ghostlight browser launch``) when it runs
    with the native host registered in its profile, else None."""
    profile = _managed_profile(endpoints)
    return None if profile is None else managed.profile_in_use(profile)


def _managed_profile(endpoints: Endpoints) -> Path | None:
    """This instance's managed-browser profile, when it was set up (its native host is
    registered in it)."""
    profile = endpoints.data_dir / "browser-profile"
    registered = (profile / "NativeMessagingHosts" / f"{NATIVE_HOST_NAME}.json").is_file()
    return profile if registered else None


def _host_data_root(program: str, place: Place) -> tuple[Path, bool]:
    """The data root the native host a manifest runs would use, and whether it is pinned:
    a wrapper script exports ``GHOSTLIGHT_HOME``; the bare connector gets the browser's
    environment, taken to be ``HOME`` alone."""
    try:
        text = Path(program).read_text(encoding="utf-8", errors="replace")
    except OSError:
        text = ""
    if text.startswith("#!"):
        for line in text.splitlines():
            if line.startswith(f"export {HOME_ENV}="):
                try:
                    words = shlex.split(line)
                except ValueError:
                    continue
                value = words[1].partition("=")[2] if len(words) > 1 else ""
                if value:
                    return Path(value), True
    return bare_data_root(place.home), False


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

