"""``ghostlight status``: one screen on the instance: service, browsers, workspaces, work, hold."""

from __future__ import annotations

import json
from collections.abc import Sequence

import attrs

from ..browser.compat import skew_message
from ..service.lock import data_lock_holder
from ..transport.bridge import StatusReport, WorkspaceEntry
from ..transport.endpoints import Endpoints
from .control import query_status

NOT_RUNNING = "down (not running for this instance)"


async def fetch(endpoints: Endpoints) -> tuple[StatusReport | None, str]:
    """The live report, or None with why the service could not be asked."""
    try:
        return await query_status(endpoints), ""
    except FileNotFoundError:
        return None, elsewhere(endpoints) or NOT_RUNNING
    except ConnectionRefusedError:
        return None, elsewhere(endpoints) or "down (stale socket, nothing listening)"
    except OSError as exc:
        return None, f"down ({exc})"
    except Exception as exc:
        return None, f"unreachable: {exc}"


def elsewhere(endpoints: Endpoints) -> str:
    """Why no service answers here although one serves this instance's data: it was started
    with another runtime directory (XDG_RUNTIME_DIR differs), so its sockets are not here."""
    holder = data_lock_holder(endpoints)
    if holder is None or holder.runtime_dir == str(endpoints.runtime_dir):
        return ""
    return (
        f"not reachable from here: the service of this instance runs (pid {holder.pid}) with its"
        f" sockets under {holder.runtime_dir or 'another runtime directory'}, not under"
        f" {endpoints.runtime_dir}; this shell's XDG_RUNTIME_DIR differs from the one that"
        " started it"
    )


async def status(endpoints: Endpoints, as_json: bool = False) -> int:
    report, why = await fetch(endpoints)
    if as_json:
        body = {"instance": endpoints.instance, "up": report is not None, "reason": why}
        if report is not None:
            body.update(attrs.asdict(report))
        print(json.dumps(body, indent=2))
        return 0 if report is not None else 1
    print(f"instance   {endpoints.instance}")
    if report is None:
        print(f"service    {why}")
        print(f"log        {endpoints.log_file}")
        flag = "" if endpoints.instance == "default" else f" --instance {endpoints.instance}"
        print(f"           start it with `ghostlight service start{flag}` (MCP clients also start it)")
        return 1
    print(f"service    up, pid {report.pid}, version {report.service_version}")
    state = "PANIC" if report.panicked else "held by the user" if report.held else "agents may act"
    print(f"control    {state}")
    print(f"clients    {report.edges} MCP connection(s) now")
    print(f"workspaces {report.workspaces}, active work {report.active_work}")
    for line in workspace_lines(report.workspace_list):
        print(f"{'':11}{line}")
    if report.quarantined:
        print(
            f"quarantine {', '.join(report.quarantined)}: an action there has an unknown outcome,"
            " so agents cannot act there until the browser answers it or the tab is closed"
        )
    if not report.browsers:
        print("browsers   none connected (load the extension; see `ghostlight doctor`)")
    for browser in report.browsers:
        skew = skew_message(browser.extension_version)
        print(
            f"browser {browser.slot}  {browser.browser_id[:8]} extension {browser.extension_version}"
            f"{' SKEW' if skew else ''}, features {', '.join(browser.features) or 'none'}"
        )
    print(f"log        {endpoints.log_file}")
    return 0


NAME_WIDTH = 28
"""A longer client label is cut (with an ellipsis) so the table stays one line a workspace."""


def workspace_name(entry: WorkspaceEntry) -> str:
    """The workspace as its tab group is titled (``Ghostlight · claude-code 2`` shows as
    ``claude-code 2``), printable and at most ``NAME_WIDTH`` characters."""
    label = printable(entry.label) or "(no label)"
    number = f" {entry.ordinal}" if entry.ordinal > 1 else ""
    if len(label) + len(number) > NAME_WIDTH:
        label = label[: NAME_WIDTH - len(number) - 1] + "…"
    return label + number


def printable(text: str) -> str:
    """Client-given text made safe for a terminal: control and other unprintable characters
    (an escape sequence, a line break) become ``?``."""
    return "".join(char if char.isprintable() else "?" for char in text)


def _plural(count: int, one: str, many: str | None = None) -> str:
    return f"{count} {one if count == 1 else many or one + 's'}"


def _holder(entry: WorkspaceEntry) -> str:
    if entry.clients:
        return "held by " + ("a client" if entry.clients == 1 else f"{entry.clients} clients")
    if entry.expires_in is not None:
        return f"expires in {entry.expires_in} s"
    return "held by its running calls"


def workspace_lines(entries: Sequence[WorkspaceEntry]) -> list[str]:
    """One aligned line per live workspace (name, fingerprint, tabs, running calls, what keeps
    it), then how to release a paused one."""
    if not entries:
        return []
    rows = [
        (
            workspace_name(entry),
            entry.fingerprint,
            _plural(entry.tabs, "tab"),
            f"{entry.active_calls} running",
            _holder(entry) + ("  PAUSED" if entry.paused else ""),
        )
        for entry in entries
    ]
    widths = [max(len(row[column]) for row in rows) for column in range(4)]
    lines = [
        "  ".join([*(cell.ljust(width) for cell, width in zip(row, widths, strict=False)), row[4]])
        for row in rows
    ]
    if any(entry.paused for entry in entries):
        lines.append(
            "PAUSED: repeated denials stopped its calls; `ghostlight resume --workspace ws-…`"
            " releases it"
        )
    return lines
