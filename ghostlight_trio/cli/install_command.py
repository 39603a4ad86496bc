"""``ghostlight install`` / ``uninstall``: print the plan, apply it (unless ``--dry-run``)."""

from __future__ import annotations

import argparse
import re
import sys

import trio

from ..browser import managed
from ..install.changes import StaleChange, apply
from ..install.places import Place
from ..install.plan import Action, Options, plan_install, plan_uninstall
from ..transport.endpoints import Endpoints
from .arguments import instance_flag
from .browser_left import say_browser_left

_EXTENSION_ID = re.compile(r"^[a-p]{32}$")


def options_from(args: argparse.Namespace, *, installing: bool) -> Options:
    ids: tuple[str, ...] = ()
    problem = ""
    if installing:
        # A package without the extension still registers MCP clients; only the browsers'
        # native host needs the id (plan_install reports what it could not do).
        try:
            ids = (managed.extension_id(managed.default_extension_dir()),)
        except managed.ManagedBrowserError as exc:
            problem = str(exc)
        for extra in args.extension_id or ():
            if not _EXTENSION_ID.match(extra):
                raise ValueError(f"--extension-id {extra!r} is not 32 letters a-p")
            ids += (extra,)
    clients = None
    if args.no_clients and args.client:
        raise ValueError("--client and --no-clients contradict each other; use one of them")
    if args.no_clients:
        clients = ()
    elif args.client:
        clients = tuple(args.client)
    return Options(
        clients=clients,
        browsers=tuple(args.browser) if args.browser else None,
        autostart=getattr(args, "autostart", False),
        extension_ids=ids,
        extension_problem=problem,
    )


def run(endpoints: Endpoints, args: argparse.Namespace, *, installing: bool) -> int:
    try:
        options = options_from(args, installing=installing)
    except (ValueError, managed.ManagedBrowserError) as exc:
        print(f"ghostlight: {exc}", file=sys.stderr)
        return 2
    place = Place.current()
    plan = plan_install if installing else plan_uninstall
    actions = plan(place, endpoints, options)
    verb = "install" if installing else "uninstall"
    print(f"ghostlight {verb} (instance {endpoints.instance}){' --dry-run' if args.dry_run else ''}")
    counts = {"applied": 0, "unchanged": 0, "failed": 0, "manual": 0}
    if not args.dry_run and any(a.change and a.change.changes_anything for a in actions):
        endpoints.ensure_private_dirs()
    for action in actions:
        _report(action, dry_run=args.dry_run, counts=counts)
    head = "Planned" if args.dry_run else "Done"
    print(
        f"{head}: {counts['applied']} {'to apply' if args.dry_run else 'applied'},"
        f" {counts['unchanged']} unchanged, {counts['manual']} manual step(s),"
        f" {counts['failed']} failed."
    )
    if args.dry_run:
        print("Dry run: nothing was written.")
        if installing and args.wait:
            print("--wait is ignored in a dry run: nothing was installed to wait for.")
    if not installing:
        say_browser_left(endpoints)  # uninstalling unregisters, it does not stop a browser
    if installing:
        print_extension_steps(endpoints)
        if args.wait and not args.dry_run:
            return trio.run(wait_for_extension, endpoints, args.wait) or (
                1 if counts["failed"] else 0
            )
    return 1 if counts["failed"] else 0


def _report(action: Action, *, dry_run: bool, counts: dict[str, int]) -> None:
    change = action.change
    if action.failed:
        counts["failed"] += 1
        print(f"  [FAIL]   {action.label} -> {action.note}")
    elif change is None:
        print(f"  [skip]   {action.label} ({action.note})")
    elif not change.changes_anything:
        counts["unchanged"] += 1
        print(f"  [noop]   {action.label} ({action.note or 'unchanged'})")
    elif dry_run:
        counts["applied"] += 1
        print(f"  [plan]   {change.verb} {action.label}")
        print("".join(f"      {line}" for line in change.diff().splitlines(keepends=True)), end="")
    else:
        try:
            backup = apply(change)
        except (OSError, StaleChange) as exc:
            counts["failed"] += 1
            print(f"  [FAIL]   {change.verb} {action.label} -> {exc}")
            return
        counts["applied"] += 1
        suffix = f" (backup: {backup})" if backup else ""
        print(f"  [ok]     {change.verb} {action.label}{suffix}")
    if action.manual:
        counts["manual"] += 1
        print("  [manual] " + action.manual.replace("\n", "\n           "))


def print_extension_steps(endpoints: Endpoints) -> None:
    directory = managed.default_extension_dir()
    try:
        ext_id = managed.extension_id(directory)
    except managed.ManagedBrowserError as exc:
        print(
            f"\nThis install of ghostlight-trio carries no browser extension ({exc}), so no"
            " browser was set up. Reinstall it from a wheel or source tree that carries the"
            " extension, then run `ghostlight install` again.\n"
            "Restart your MCP clients; they start the Ghostlight service on first use.\n"
            f"Verify with `ghostlight doctor{instance_flag(endpoints)}`."
        )
        return
    print(
        "\nLoad the Ghostlight extension (once per browser profile):\n"
        "  1. open chrome://extensions (edge://extensions, brave://extensions)\n"
        "  2. turn on Developer mode\n"
        f'  3. click "Load unpacked" and choose {directory}\n'
        f"  4. check that the extension id reads {ext_id}\n"
        "Then restart your MCP clients; they start the Ghostlight service on first use.\n"
        f"Verify the whole chain with `ghostlight doctor{instance_flag(endpoints)}`, or wait for the"
        f" extension with `ghostlight install --wait 120{instance_flag(endpoints)}`."
    )



async def wait_for_extension(endpoints: Endpoints, seconds: float) -> int:
    """Start the service if needed and wait until an extension connects; report skew."""
    from ..browser.compat import skew_message
    from .background import ensure_service
    from .control import wait_for_browser

    try:
        await ensure_service(endpoints)
        print(f"\nWaiting up to {seconds:g} s for the extension to connect...")
        report = await wait_for_browser(endpoints, within=seconds)
    except (RuntimeError, TimeoutError, OSError) as exc:
        print(f"ghostlight: {exc}", file=sys.stderr)
        return 1
    for browser in report.browsers:
        skew = skew_message(browser.extension_version)
        state = f"SKEW: {skew}" if skew else "ok"
        print(
            f"extension connected: browser {browser.browser_id[:8]} slot {browser.slot},"
            f" version {browser.extension_version} ({state})"
        )
    return 0
