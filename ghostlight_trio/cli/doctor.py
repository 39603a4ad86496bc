"""``ghostlight doctor``: every link from MCP client to extension, one verdict and fix per line.

Read-only: it never starts the service or edits a file. Exit 1 when any link is broken.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import attrs

from .. import __version__
from ..browser import managed
from ..browser.compat import SUPPORTED_EXTENSIONS, SUPPORTED_WIRE, skew_message
from ..install.places import Place
from ..launch.spawn import last_words
from ..transport.bridge import StatusReport
from ..transport.endpoints import Endpoints
from .arguments import instance_flag
from .doctor_checks import (
    Check,
    browsers_found,
    executables,
    managed_browser_stopped,
    manifests,
    private_file,
    registrations,
    relaunch_command,
    secret_file,
)
from .status import Down, fetch

_MARKS = {"ok": "[ ok ]", "warn": "[warn]", "fail": "[FAIL]", "info": "[info]", "skip": "[ -- ]"}


async def collect(endpoints: Endpoints, place: Place | None = None) -> list[Check]:
    place = place or Place.current()
    rows = [Check("package", "ghostlight-trio", "ok", f"version {__version__} ({sys.executable})")]
    rows += executables()
    report, why = await fetch(endpoints)
    rows.append(_service_row(endpoints, report, why))
    held = report is not None or (why is not None and why.pid is not None)
    rows += _private_rows(endpoints, report is not None, held)
    rows += registrations(place, endpoints)
    try:
        extension_id = managed.extension_id(managed.default_extension_dir())
    except managed.ManagedBrowserError as exc:
        rows.append(Check("browsers", "extension id", "fail", str(exc), "reinstall the package"))
        extension_id = ""
    rows += manifests(place, endpoints, extension_id)
    rows += browsers_found()
    rows += _extension_rows(report, endpoints)
    rows += policy_rows(endpoints)
    rows.append(_audit_row(endpoints, report))
    return rows


def _service_row(endpoints: Endpoints, report: StatusReport | None, why: Down | None) -> Check:
    if report is None:
        assert why is not None
        return _down_row(endpoints, why)
    if report.service_version != __version__:
        return Check(
            "service", "service", "warn",
            f"up (pid {report.pid}) but runs version {report.service_version}, installed {__version__}",
            f"ghostlight service restart{instance_flag(endpoints)}",
        )
    return Check("service", "service", "ok", f"up, pid {report.pid}, version {report.service_version}")


def _down_row(endpoints: Endpoints, down: Down) -> Check:
    start = f"ghostlight service start{instance_flag(endpoints)}"
    if down.usual:
        # The usual state of an on-demand service between uses (it exits when idle, or died
        # and left its socket for the next start to replace): nothing to fix, so no failure,
        # but the way to start it by hand all the same.
        note = f"; {down.note}" if down.note else ""
        return Check(
            "service", "service", "info",
            f"not running now{note}; an MCP client starts it on first use",
            f"{start} to start it now",
        )
    # A service that stopped as it started said why in its log; one still running did not.
    said = last_words(endpoints.log_file) if down.pid is None else ""
    fix = down.fix or f"{start} (MCP clients also start it on first use)"
    return Check(
        "service", "service", "fail", str(down) + (f"; its log ends: {said}" if said else ""),
        f"{fix}; log: {endpoints.log_file}",
    )


def _private_rows(endpoints: Endpoints, up: bool, held: bool) -> list[Check]:
    """The runtime files; ``held``: a service holds the instance (its sockets are its own, up
    or not); without one, a socket left in place is stale, not a live link."""
    restart = f"ghostlight service restart{instance_flag(endpoints)}"
    rows = [
        private_file(
            "service", "runtime directory", endpoints.runtime_dir, kind="directory",
            required=up, missing_hint=restart,
        ),
        _socket_row("MCP socket", endpoints.edge_socket, up, held, restart),
        _socket_row("browser socket", endpoints.browser_socket, up, held, restart),
    ]
    secret = secret_file(endpoints, required=up)
    if secret.verdict == "info":
        secret = attrs.evolve(secret, detail=secret.detail + " (created when the service first starts)")
    rows.append(secret)
    return rows


def _socket_row(name: str, path: Path, up: bool, held: bool, restart: str) -> Check:
    row = private_file("service", name, path, kind="socket", required=up, missing_hint=restart)
    if held or row.verdict != "ok":
        return row
    # A sound socket file that no service holds is not a live link: one that died left it.
    return attrs.evolve(
        row, verdict="info",
        detail=f"{path}: stale, nothing listens on it (left by a service that stopped"
        " uncleanly; the next start replaces it)",
    )


def _extension_rows(report: StatusReport | None, endpoints: Endpoints) -> list[Check]:
    if report is None:
        return [Check("extension", "extension", "skip", "no answer from the service: cannot ask")]
    rows = [
        Check("extension", "MCP edges", "info", f"{report.edges} live MCP connection(s) right now"),
    ]
    if not report.browsers and managed_browser_stopped(endpoints) is not None:
        rows.append(
            Check(
                "extension", "extension", "fail",
                "no browser extension is connected: this instance's managed browser is not running",
                f"{relaunch_command(endpoints)}; log: {_log_hint()}",
            )
        )
    elif not report.browsers:
        rows.append(
            Check(
                "extension", "extension", "fail", "no browser extension is connected",
                "load the extension (`ghostlight install` prints the steps) in a browser whose native"
                f" host is registered; log: {_log_hint()}",
            )
        )
    range_text = f"supported extension {SUPPORTED_EXTENSIONS}, wire {SUPPORTED_WIRE}"
    for browser in report.browsers:
        detail = (
            f"browser {browser.browser_id} slot {browser.slot}, generation {browser.generation},"
            f" extension {browser.extension_version}, features {', '.join(browser.features) or 'none'}"
        )
        skew = skew_message(browser.extension_version)
        if skew:
            rows.append(Check("extension", f"browser {browser.slot}", "fail", f"{detail}: SKEW", skew))
        else:
            rows.append(Check("extension", f"browser {browser.slot}", "ok", f"{detail} ({range_text})"))
    return rows


def _log_hint() -> str:
    return "ghostlight logs"


def policy_rows(endpoints: Endpoints) -> list[Check]:
    """Policy source and validity, only when this build has a governance package."""
    try:
        from ..governance import sources
    except ImportError:
        return [Check("policy", "policy", "skip", "this build has no governance package")]
    try:
        files = sources.PolicyFiles(
            org=sources.ORG_POLICY_PATH,
            user=sources.user_manifest_path(data_dir=endpoints.data_dir),
            settings=sources.settings_path(endpoints.data_dir),
        )
        loaded = sources.PolicySources(files).load(initial=True)
    except Exception as exc:  # a package still being built must not break doctor
        return [Check("policy", "policy", "warn", f"could not evaluate the policy: {exc}")]
    tiers = [
        f"{tier} {manifest.name} ({manifest.mode})"
        for tier, manifest in (("org", loaded.org), ("user", loaded.user))
        if manifest is not None
    ]
    if loaded.problems:
        return [
            Check("policy", "policy", "fail", "; ".join(loaded.problems), "fix the manifest named above")
        ]
    detail = ", ".join(tiers) if tiers else "no manifest: every call is allowed (all-open)"
    return [Check("policy", "policy", "ok", detail)]


def _audit_row(endpoints: Endpoints, report: StatusReport | None = None) -> Check:
    path = endpoints.audit_file
    directory = path.parent
    if report is not None and report.audit_problem:
        return Check(
            "audit", "audit log", "fail",
            f"not written: {report.audit_problem}; calls that would reach a page are refused",
            "free space on that disk (or fix the file); the next call writes the records again",
        )
    if path.exists():
        return Check("audit", "audit log", "ok", f"JSONL at {path} ({path.stat().st_size} bytes)")
    if directory.exists() and not os.access(directory, os.W_OK):
        return Check("audit", "audit log", "fail", f"{directory} is not writable", f"chmod u+w {directory}")
    return Check("audit", "audit log", "info", f"JSONL at {path} (written on the first call)")



def render(rows: list[Check], endpoints: Endpoints) -> str:
    lines = [f"ghostlight doctor (instance {endpoints.instance})"]
    section = ""
    for row in rows:
        if row.section != section:
            section = row.section
            lines.append(f"{section}:")
        lines.append(f"  {_MARKS[row.verdict]} {row.name}: {row.detail}")
        if row.fix and row.verdict in ("fail", "warn"):
            lines.append(f"         fix: {row.fix}")
    broken = [r for r in rows if r.verdict == "fail"]
    lines.append(f"verdict: {'BROKEN, ' + str(len(broken)) + ' link(s) to fix' if broken else 'OK'}")
    return "\n".join(lines)


async def doctor(endpoints: Endpoints, as_json: bool = False) -> int:
    rows = await collect(endpoints)
    broken = any(row.verdict == "fail" for row in rows)
    if as_json:
        body = {
            "instance": endpoints.instance,
            "ok": not broken,
            "checks": [attrs.asdict(row) for row in rows],
        }
        if broken:
            failed = sum(row.verdict == "fail" for row in rows)
            body["error"] = f"{failed} link(s) broken; each check's fix says what to do"
        print(json.dumps(body, indent=2))
    else:
        print(render(rows, endpoints))
    return 1 if broken else 0
