"""Which instances exist, and the check that a command names one of them.

An instance exists when its data directory does: only setting one up makes it (the service
before it writes its ``bridge.secret`` and log, ``install`` for its record of what it wrote,
``browser launch`` for its profile, ``service --manifest`` for the policy it keeps), and it
stays when a file in it goes (``--manifest none`` drops the only record some have). A name
that was only typed leaves nothing. The check runs before any command touches the instance,
so a refused command creates nothing on disk: a typo in ``ghostlight panic --instance defualt``
must not report a kill switch engaged on an instance that does not run while the real one
runs on. The runtime directory does not count: it is the data that makes an instance, and a
service started with another ``$XDG_RUNTIME_DIR`` keeps its sockets elsewhere.
"""

from __future__ import annotations

import argparse
import os

from ..transport.endpoints import (
    DEFAULT_INSTANCE,
    INSTANCE_ENV,
    Endpoints,
    InstanceNameError,
    instances_root,
    validate_instance,
)

CREATES = {("service", None), ("service", "start"), ("browser", "launch"), ("install", None),
           ("demo", None), ("replay", None)}  # fmt: skip
"""Commands that set an instance up, so they may name a new one (``replay`` starts a service
and a browser when none runs, as ``browser launch`` does)."""

UNCHECKED = {("uninstall", None), ("policy", "check"), ("policy", "init"), ("instances", None),
             ("bundle", None), ("completion", None)}  # fmt: skip
"""``uninstall`` must still take out client entries and host files after the data directory
is gone (and creates nothing itself); ``policy check`` reads only a file and ``policy init``
writes only one; ``instances`` lists; ``bundle`` packs this installation, for no instance."""

IGNORES_INSTANCE = {("policy", "check"), ("policy", "init"), ("instances", None),
                    ("bundle", None), ("completion", None)}  # fmt: skip
"""Commands that never read the instance, so an empty ``$GHOSTLIGHT_INSTANCE`` is no matter."""


def known() -> list[str]:
    """The names of the instances that exist, sorted."""
    try:
        entries = list(instances_root().iterdir())
    except OSError:
        return []
    names = []
    for entry in entries:
        try:
            name = validate_instance(entry.name)
        except InstanceNameError:
            continue
        if entry.is_dir():
            names.append(name)
    return sorted(names)


def exists(endpoints: Endpoints) -> bool:
    """The rule of the module docstring, for the default instance as for any other."""
    return endpoints.data_dir.is_dir()


def endpoints_for(args: argparse.Namespace) -> Endpoints:
    """The instance ``args`` names; raises InstanceNameError, with what to do, for an empty name
    and, for a command that acts on an instance, for one that does not exist. Checked are hold,
    panic, resume (a switch pressed on a typo reaches nobody), status, watch, logs, audit, policy
    explain and simulate (they would report on an instance nobody runs), service stop and
    restart, browser list and stop (but ``browser stop --all``), and ``doctor`` for a named
    instance: on the default one it is what a person runs
    when nothing is set up yet."""
    command = _command(args)
    cli_value: str | None = getattr(args, "instance", None)
    if command == ("demo", None) and cli_value is None:
        cli_value = "demo"  # the demo's own instance, never the user's
    if cli_value is not None and not cli_value.strip():
        raise InstanceNameError(
            "--instance is empty: name an instance (`ghostlight instances` lists them), or leave"
            f" the option out for {DEFAULT_INSTANCE!r}"
        )
    env_value = os.environ.get(INSTANCE_ENV)
    if cli_value is None and env_value is not None and not env_value.strip():
        if command not in IGNORES_INSTANCE:
            raise InstanceNameError(
                f"${INSTANCE_ENV} is set but empty: unset it for {DEFAULT_INSTANCE!r}, or set it"
                " to an instance `ghostlight instances` lists"
            )
        env_value = DEFAULT_INSTANCE  # unused by these commands; not read from $ again
    endpoints = Endpoints.for_instance(cli_value or env_value)
    if command in CREATES or command in UNCHECKED or _sets_policy(args) or exists(endpoints):
        return endpoints
    if command == ("browser", "stop") and args.all:
        return endpoints  # every instance's, whichever this one is
    if command == ("doctor", None) and endpoints.instance == DEFAULT_INSTANCE:
        return endpoints
    raise InstanceNameError(unknown_text(endpoints.instance, known()))


def _sets_policy(args: argparse.Namespace) -> bool:
    """``service --manifest``, whatever the action: it keeps the instance's policy for every
    later start, which sets the instance up as ``service start`` would."""
    return args.command == "service" and getattr(args, "manifest", None) is not None


def unknown_text(name: str, names: list[str]) -> str:
    """One line: the instance is not there, which are, and how to make one."""
    if not names:
        return (
            f"no instance {name!r}: nothing is set up yet; `ghostlight install{_flag(name)}` sets"
            f" it up for your MCP clients and browsers, `ghostlight service start{_flag(name)}`"
            " starts its service"
        )
    return (
        f"no instance {name!r} (known: {', '.join(names)}); to create it, run"
        f" `ghostlight service start{_flag(name)}` or `ghostlight install{_flag(name)}`"
    )


def _flag(name: str) -> str:
    return "" if name == DEFAULT_INSTANCE else f" --instance {name}"


def _command(args: argparse.Namespace) -> tuple[str, str | None]:
    """The command as (name, action or subcommand), the action None when it has none."""
    command: str = args.command
    for attribute in ("action", "browser_command", "policy_command", "audit_command"):
        value = getattr(args, attribute, None)
        if value is not None:
            return command, value
    return command, None
