"""``ghostlight policy check | explain | simulate``: read, explain and replay policy offline."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import trio

from ..catalog.registry import load_specs
from ..governance.explain import manifest_lines, policy_lines
from ..governance.governor import PolicyState, state_from
from ..governance.manifest import ManifestError, load_manifest
from ..governance.settings import load_settings
from ..governance.simulate import Replayed, simulate
from ..governance.sources import (
    ORG_POLICY_PATH,
    Loaded,
    PolicyFiles,
    PolicySources,
    settings_path,
    user_manifest_path,
)
from ..transport.endpoints import Endpoints
from . import json_output
from .audit_command import Skipped, every_record, records_from


def current_state(endpoints: Endpoints) -> PolicyState:
    """The policy the service would load now: org file, user manifest, settings."""
    files = PolicyFiles(
        org=ORG_POLICY_PATH,
        user=user_manifest_path(data_dir=endpoints.data_dir),
        settings=settings_path(endpoints.data_dir),
    )
    return state_from(PolicySources(files).load(initial=True))


def check(path: str, *, as_json: bool = False) -> int:
    try:
        manifest = load_manifest(Path(path))
    except ManifestError as exc:
        if as_json:
            json_output.error(f"{exc.source}: rejected", file=path, problems=exc.problems)
        print(f"{exc.source}: rejected", file=sys.stderr)
        for problem in exc.problems:
            print(f"  {problem}", file=sys.stderr)
        return 1
    if as_json:
        json_output.emit(
            {
                "file": path, "ok": True, "label": manifest.label, "grants": len(manifest.grants),
                "mode": manifest.mode,
            }
        )  # fmt: skip
        return 0
    print(f"{path}: ok ({manifest.label}, {len(manifest.grants)} grants, mode {manifest.mode})")
    return 0


def explain(endpoints: Endpoints, path: str | None) -> int:
    """Without a file: what the policy in force allows (the running service's own, which is the
    last good one when an edit could not be loaded; else what a service would load now). With
    one: what that manifest allows."""
    if path is None:
        answered, live = _live_policy(endpoints)
        if live is not None:
            print("ghostlight: the running service enforces this policy:", file=sys.stderr)
            print(live)
            return 0
        where = (
            "the running service cannot say which policy it enforces (an older version); the"
            " policy files say"
            if answered
            else "no service is running; one that starts now would load this policy"
        )
        print(f"ghostlight: {where}:", file=sys.stderr)
        print("\n".join(policy_lines(current_state(endpoints))))
        return 0
    try:
        manifest = load_manifest(Path(path))
    except ManifestError as exc:
        print(str(exc), file=sys.stderr)
        return 1
    print("\n".join(manifest_lines("candidate", manifest)))
    return 0


def _live_policy(endpoints: Endpoints) -> tuple[bool, str | None]:
    """Whether a service answered, and its own account of its policy (None when it gave none:
    nothing answered, or a service too old to tell)."""
    from .safety_command import NO_ANSWER, send_control

    try:
        result = trio.run(send_control, endpoints, "explain")
    except NO_ANSWER:
        return False, None
    return True, (result.message if result.ok else None)


def simulate_file(
    endpoints: Endpoints, audit: str, manifest: str | None, *, as_json: bool = False
) -> int:
    """Replay ``audit`` against ``manifest`` (default: the current policy). Exit 0 when nothing
    would be denied, 2 when something would, 1 on bad input."""
    if manifest is None:
        state = current_state(endpoints)
        if state.problems:
            print(
                "ghostlight: the policy files cannot all be loaded now ("
                + "; ".join(state.problems)
                + "). A running service keeps its last good policy, which this replay cannot"
                " read; the replay below is against what a service starting now would load."
                " Fix the file, or name a manifest with --manifest.",
                file=sys.stderr,
            )
    else:
        try:
            candidate = load_manifest(Path(manifest))
        except ManifestError as exc:
            return json_output.refuse(str(exc), as_json)
        settings = load_settings(settings_path(endpoints.data_dir))
        state = state_from(Loaded(user=candidate, settings=settings))
    audit_path = Path(audit)
    problem = _audit_file_problem(audit_path)
    if problem:
        return json_output.refuse(problem, as_json)
    specs = {spec.name: spec for spec in load_specs()}
    skipped = Skipped()
    records = list(_records(endpoints, audit_path, skipped))
    calls = [record for record in records if "event" not in record and "call" in record]
    if (records or skipped.count) and not any("time" in record for record in records):
        return json_output.refuse(
            f"{audit_path} is no audit trail: none of its lines is an audit record (a policy"
            " manifest goes to --manifest; the audit file is the instance's audit.jsonl)",
            as_json,
        )
    replayed = simulate(calls, specs, state)
    skipped.say()
    denied = [item for item in replayed if item.decision.verdict != "allow"]
    freed = [item for item in replayed if item.decision.verdict == "allow" and item.changed]
    if as_json:
        json_output.emit(
            {
                "replayed": len(replayed),
                "denied": [_entry(item) for item in denied],
                "now_allowed": [_entry(item) for item in freed],
            }
        )
        return 2 if denied else 0
    for item in denied:
        print(_line(item, f"{item.decision.verdict} {item.decision.denial_id}"))
    for item in freed:
        print(_line(item, f"allow (was {item.record.get('denial_id')})"))
    print(
        f"{len(replayed)} calls replayed, {len(denied)} would be denied,"
        f" {len(freed)} denied when recorded would now be allowed."
    )
    return 2 if denied else 0



def _entry(item: Replayed) -> dict[str, Any]:
    """One replayed call for ``--json``: the record's own fields and the new decision."""
    record, decision = item.record, item.decision
    fields = ("time", "call", "tool", "action", "host", "denial_id")
    return {
        **{name: record.get(name) for name in fields},
        "was": record.get("decision"),
        "verdict": decision.verdict,
        "new_denial_id": decision.denial_id,
        "rule": decision.rule,
        "grant": decision.grant,
    }


def _audit_file_problem(path: Path) -> str:
    """Why ``path`` cannot be replayed ("" when it can)."""
    if path.is_dir():
        return f"{path} is a directory, not an audit file"
    try:
        path.open("rb").close()
    except FileNotFoundError:
        return f"{path} does not exist"
    except OSError as exc:
        return f"{path} cannot be read ({exc.strerror or exc})"
    return ""


def _records(endpoints: Endpoints, path: Path, skipped: Skipped) -> Iterator[dict[str, Any]]:
    """The records in ``path``: the instance's own trail with its rotated files, any other
    file just as named (an ``X.jsonl.1`` beside a copy is no part of it)."""
    if _same_file(path, endpoints.audit_file):
        return every_record(endpoints.audit_file, skipped)
    return _file_records(path, skipped)


def _file_records(path: Path, skipped: Skipped) -> Iterator[dict[str, Any]]:
    with path.open("rb") as handle:
        yield from records_from(handle, skipped)


def _same_file(path: Path, other: Path) -> bool:
    try:
        return path.samefile(other)
    except OSError:
        return False


def _line(item: Replayed, verdict: str) -> str:
    record, decision = item.record, item.decision
    action = f" ({record['action']})" if record.get("action") else ""
    grant = f" [{decision.grant}]" if decision.grant else ""
    return (
        f"{record.get('time', '?')}  {record.get('call', '?')}  {record.get('tool')}{action}"
        f"  {record.get('host') or '-'}  {verdict}  {decision.rule}{grant}"
    )
