"""The governance and audit subcommands: ``hold``, ``resume``, ``panic``, ``policy ...``,
``audit ...``, and ``--manifest`` for ``service``."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

import trio

from ..governance.sources import MANIFEST_ENV
from ..transport.endpoints import Endpoints
from . import arguments, json_output, policy_init
from .parsing import subcommands

SAFETY_COMMANDS = {
    "hold": "take the wheel: agents' browser calls stop (not executed) until resume",
    "resume": "release hold, the kill switch and paused workspaces (or one, with --workspace)",
    "panic": "kill switch: stop all browser work now; calls are refused until resume",
}


def add_service_options(service: argparse.ArgumentParser) -> None:
    service.add_argument(
        "--manifest",
        help=(
            "user policy manifest (path or file://path), kept for every later start of this"
            f" instance; 'none' drops it (${MANIFEST_ENV}, when set, wins over both)"
        ),
    )


def add_parsers(commands: Any, instance: argparse.ArgumentParser) -> None:
    switches = {
        name: commands.add_parser(name, help=text, parents=[instance])
        for name, text in SAFETY_COMMANDS.items()
    }
    switches["resume"].add_argument(
        "--workspace",
        metavar="FINGERPRINT",
        help="resume only this paused workspace (ws-…, as audit shows it); hold and kill switch stay",
    )
    for switch in switches.values():
        json_output.add_option(switch)

    policy = commands.add_parser(
        "policy", help="check, explain and simulate policy", parents=[instance]
    )
    policy_commands = subcommands(policy, "policy_command")
    check = policy_commands.add_parser("check", help="validate a manifest file", parents=[instance])
    check.add_argument("file", help="the policy manifest (TOML) to validate")
    json_output.add_option(check)
    explain = policy_commands.add_parser(
        "explain", help="what the current policy (or FILE) allows", parents=[instance]
    )
    explain.add_argument(
        "file", nargs="?", help="a manifest to explain instead of the policy in force"
    )
    json_output.add_option(explain)
    simulate = policy_commands.add_parser(
        "simulate",
        help="replay an audit file against a policy (default: the current one)",
        description="Replay the calls recorded in an audit trail against a policy. Exit codes:"
        " 0 when no call would be denied, 2 when some would, 1 when the audit file or the"
        " manifest cannot be read.",
        parents=[instance],
    )
    simulate.add_argument(
        "auditfile", help="an audit trail (JSON lines, such as the instance's audit.jsonl)"
    )
    simulate.add_argument("--manifest", help="the candidate manifest to replay against")
    json_output.add_option(simulate)
    policy_init.add_parser(policy_commands, instance)

    audit = commands.add_parser("audit", help="read the audit trail", parents=[instance])
    audit_commands = subcommands(audit, "audit_command")
    tail = audit_commands.add_parser("tail", help="the latest records", parents=[instance])
    tail.add_argument(
        "-n", type=arguments.count, default=20, help="how many records (default 20; 0 with -f: new ones only)"
    )
    tail.add_argument("--json", action="store_true", help=_JSON_LINES)
    tail.add_argument(
        "-f", "--follow", action="store_true", help="then print each new record as it is written"
    )
    show = audit_commands.add_parser("show", help="records as a table, filtered", parents=[instance])
    show.add_argument("--tool", help="only calls of this tool (navigate, act_on, ...)")
    show.add_argument(
        "--decision",
        choices=["allow", "deny", "shadow_deny", "held"],
        help="only calls the policy decided so",
    )
    show.add_argument("--workspace", metavar="FINGERPRINT", help="one workspace's records (ws-…)")
    show.add_argument(
        "--since",
        type=arguments.when,
        help="from this time on: 15m, 2h, 3d ago, or an RFC 3339 time or prefix such as"
        " 2026-11-30 or 2026-11-30T14:05 (UTC unless it ends in an offset like +02:00)",
    )
    show.add_argument(
        "--until",
        type=arguments.when,
        help="up to this time, the whole day or minute it names included: 5m ago, 2026-11-30, ...",
    )
    show.add_argument("--json", action="store_true", help=_JSON_LINES)


_JSON_LINES = "JSON Lines: each record as one JSON object on a line of its own"


def dispatch(args: argparse.Namespace, endpoints: Endpoints) -> int | None:
    """Run a governance command; None when ``args`` is someone else's command."""
    command = args.command
    if command == "service" and getattr(args, "manifest", None) is not None:
        return _choose_manifest(args.manifest, endpoints)
    if command in SAFETY_COMMANDS:
        from .safety_command import control, resume_workspace_command

        workspace = getattr(args, "workspace", None)
        if workspace is not None:
            wire = resume_workspace_command(workspace)
            if wire is None:
                print(f"ghostlight: {workspace!r} is not a workspace fingerprint", file=sys.stderr)
                return 2
            command = wire
        return trio.run(control, endpoints, command)
    if command == "policy":
        from . import policy_command

        if args.policy_command == "check":
            return policy_command.check(args.file, as_json=args.json)
        if args.policy_command == "explain":
            return policy_command.explain(endpoints, args.file)
        if args.policy_command == "init":
            return policy_init.write_example(args.file, as_json=args.json)
        return policy_command.simulate_file(
            endpoints, args.auditfile, args.manifest, as_json=args.json
        )
    if command == "audit":
        from . import audit_command

        if args.audit_command == "tail":
            return audit_command.tail(
                endpoints, count=args.n, as_json=args.json, follow=args.follow
            )
        filters = {name: getattr(args, name) for name in audit_command.FILTERS}
        return audit_command.show(endpoints, as_json=args.json, **filters)
    return None


def _choose_manifest(value: str, endpoints: Endpoints) -> int | None:
    """``service --manifest``: check the file and keep it as the instance's policy (None: go on
    with the service command), or refuse here, before a service starts without it."""
    from ..governance.manifest import ManifestError, load_manifest
    from ..governance.sources import record_manifest

    if value.strip().lower() in ("none", "off", ""):
        record_manifest(endpoints.data_dir, None)
        print("ghostlight: no user manifest for this instance from now on", file=sys.stderr)
        return None
    path = Path(value.removeprefix("file://")).expanduser().resolve()
    try:
        load_manifest(path)
    except ManifestError as exc:
        print(f"ghostlight: --manifest {value}: {exc}; nothing was started", file=sys.stderr)
        return 2
    record_manifest(endpoints.data_dir, path)
    os.environ[MANIFEST_ENV] = str(path)
    return None
