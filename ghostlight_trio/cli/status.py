"""``ghostlight status``: one screen on the instance: service, browsers, workspaces, work, hold."""

from __future__ import annotations

import json
import shlex
import stat
from collections.abc import Sequence
from pathlib import Path

import attrs
import trio

from ..browser.compat import skew_message
from ..launch.spawn import service_lock_holder
from ..service.lock import data_lock_holder
from ..transport.bridge import BrowserSummary, StatusReport, WorkspaceEntry
from ..transport.endpoints import Endpoints
from ..transport.handshake import ServiceUnresponsive
from ..transport.proof import SecretFileError
from . import switch_status
from .arguments import instance_flag
from .control import query_status
from .wording import os_problem

NOT_RUNNING = "down (not running for this instance)"
STALE_NOTE = (
    "a service that stopped uncleanly left a stale socket, which the next start replaces"
)


@attrs.frozen
class Down:
    """Why no service answered, as status shows it, with what to do: ``fix`` ("" when starting
    it is the way), ``usual`` when this is the normal state of an on-demand service between
    uses (a client starts it: nothing to fix), ``note`` on that state, and the ``pid`` of a
    service that holds the instance all the same."""

    text: str
    fix: str = ""
    usual: bool = False
    note: str = ""
    pid: int | None = None

    def __str__(self) -> str:
        return self.text


async def fetch(endpoints: Endpoints) -> tuple[StatusReport | None, Down | None]:
    """The live report, or None with why the service could not be asked."""
    try:
        return await query_status(endpoints), None
    except Exception as exc:
        return None, down(endpoints, exc)


def down(endpoints: Endpoints, exc: Exception) -> Down:
    """Why no service answered, from the failure and from what holds the instance here: a
    service that holds it but is silent is running, not down, and needs another fix."""
    pid = service_lock_holder(endpoints)
    if isinstance(exc, ServiceUnresponsive | trio.TooSlowError) and pid is not None and pid > 0:
        return unanswered(endpoints, pid)
    refused = secret_refused(endpoints, exc, pid)
    if refused is not None:
        return refused
    if isinstance(exc, FileNotFoundError | ConnectionRefusedError):
        where = elsewhere(endpoints)
        return Down(where) if where else not_listening(endpoints, pid)
    if isinstance(exc, OSError):
        return Down(f"down ({os_problem(exc)})", pid=pid)
    return Down(f"unreachable: {exc}", pid=pid)


def secret_refused(endpoints: Endpoints, exc: Exception, pid: int | None) -> Down | None:
    """The secret file is why: no service starts with one others can reach, one not this
    user's or not a file (nor a client check a service with it). Starting it again cannot
    help; replacing the secret can, the fix doctor's secret line gives."""
    from .doctor_checks import secret_file, secret_fix

    check = secret_file(endpoints, required=False)
    if check.verdict == "fail":
        detail, fix = check.detail, check.fix
    elif isinstance(exc, SecretFileError):  # one the check passes, truncated say
        detail, fix = str(exc).split(";")[0], secret_fix(endpoints)
    else:
        return None
    if pid is not None:
        return Down(f"running (pid {pid}) but unreachable: {detail}", fix=fix, pid=pid)
    return Down(f"down: {detail}, so no service can start", fix=fix)


def unanswered(endpoints: Endpoints, pid: int) -> Down:
    """A service that holds the instance and accepts but does not answer. Starting another
    cannot help (the instance is taken); resuming or replacing this one does."""
    flag = instance_flag(endpoints)
    restart = f"`ghostlight service restart{flag}`"
    state = process_state(pid)
    if state == "T":
        return Down(
            f"running (pid {pid}) but not answering: it is stopped (SIGSTOP)",
            fix=f"`kill -CONT {pid}` resumes it (or {restart} replaces it)",
            pid=pid,
        )
    maybe = "frozen or stopped" if not state else "frozen or overloaded"
    return Down(
        f"running (pid {pid}) but not answering: it may be {maybe}",
        fix=(
            f"{restart} replaces it (should it not stop, `kill -KILL {pid}`, then"
            f" `ghostlight service start{flag}`)"
        ),
        pid=pid,
    )


def not_listening(endpoints: Endpoints, pid: int | None) -> Down:
    """Nothing listens at the edge socket: say what is there instead. A socket left by a
    service that died is no fault (the next start replaces it); anything else in its place is."""
    path = endpoints.edge_socket
    kind = kind_at(path)
    if kind not in ("", "socket"):
        return Down(
            f"down: {path} is a {kind}, not a socket, so no service can listen there",
            fix=(
                f"remove it (`rm -r {shlex.quote(str(path))}`), then"
                f" `ghostlight service start{instance_flag(endpoints)}` (MCP clients also start it)"
            ),
        )
    if pid is not None:
        return Down(
            f"down: a service (pid {pid}) holds the instance but nothing listens at {path}:"
            " it may still be starting",
            pid=pid,
        )
    if kind == "socket":
        return Down(f"down (not running; {STALE_NOTE})", usual=True, note=STALE_NOTE)
    return Down(NOT_RUNNING, usual=True)


def kind_at(path: Path) -> str:
    """What is at ``path`` itself (a link is not followed): "" when nothing."""
    try:
        mode = path.lstat().st_mode
    except OSError:
        return ""
    return next((name for test, name in _KINDS if test(mode)), "special file")


_KINDS = (
    (stat.S_ISSOCK, "socket"),
    (stat.S_ISDIR, "directory"),
    (stat.S_ISREG, "file"),
    (stat.S_ISLNK, "symbolic link"),
)


def process_state(pid: int) -> str:
    """The state letter of process ``pid`` (``T``: stopped by a signal), "" when unknown."""
    try:
        text = Path(f"/proc/{pid}/stat").read_bytes().decode(errors="replace")
    except OSError:  # gone, or no /proc here
        return ""
    fields = text.rpartition(")")[2].split()  # the name in parentheses may hold anything
    return fields[0] if fields else ""



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
    saved = switch_status.saved(endpoints)  # after the query: what the service saved by then
    if as_json:
        body = {"instance": endpoints.instance, "up": report is not None, "reason": str(why or "")}
        if report is not None:
            body.update(attrs.asdict(report))
        body["saved_switches"] = switch_status.as_json(saved)
        if report is None:
            body["error"] = f"the service is {why}"
        print(json.dumps(body, indent=2))
        return 0 if report is not None else 1
    print(f"instance   {endpoints.instance}")
    if report is None:
        assert why is not None
        fix = why.fix or (
            f"start it with `ghostlight service start{instance_flag(endpoints)}` (MCP clients also start it)"
        )
        print(f"service    {why}")
        print(f"log        {endpoints.log_file}")
        print(f"{'':11}{fix}")
        print(f"control    {switch_status.down_line(saved, endpoints, pid=why.pid, usual=why.usual)}")
        return 1
    print(f"service    up, pid {report.pid}, version {report.service_version}")
    state, *differences = switch_status.up_lines(report, saved, endpoints)
    print(f"control    {state}")
    for line in differences:
        print(f"{'':11}{line}")
    if report.audit_problem:
        print(f"audit      {audit_line(report.audit_problem)}")
    print(f"clients    {report.edges} MCP connection(s) now")
    print(f"workspaces {report.workspaces}, active work {report.active_work}")
    for line in workspace_lines(report.workspace_list, instance_flag(endpoints)):
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
        waits = browser_waits(browser)
        if waits:
            print(f"{'':11}{waits}")
    print(f"log        {endpoints.log_file}")
    return 0


def audit_line(problem: str) -> str:
    """The service cannot write its audit trail: what that stops, and what to do."""
    return (
        f"NOT WRITTEN: {problem}. Calls that would reach a page are refused until records are"
        " written again: free space on that disk (or fix the file); the next call tries again"
    )


SLOW_AFTER = 15
"""Seconds of silence from a browser, with requests waiting, worth a word in the status."""


def browser_waits(browser: BrowserSummary) -> str:
    """What waits on a browser, and whether it still answers: a page may keep a call long, but
    the extension answers a ping at once; one that does not is frozen (or its native host)."""
    if not browser.waiting:
        return ""
    waiting = f"{browser.waiting} request{'s' if browser.waiting != 1 else ''} waiting"
    if browser.unanswered_ping_for is not None:
        return (
            f"NOT ANSWERING: {waiting}, nothing heard for {browser.silent_for} s, and a ping"
            f" unanswered for {browser.unanswered_ping_for} s. The browser or its native host may"
            " be frozen: restarting the browser (or reloading the Ghostlight extension)"
            " reconnects it, and what waited ends as outcome unknown"
        )
    if browser.silent_for >= SLOW_AFTER:
        return f"{waiting}, nothing heard for {browser.silent_for} s (it answers pings: a slow page)"
    return waiting


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
    """What keeps the workspace, worded apart from the user's hold switch."""
    if entry.clients:
        return "in use by " + ("a client" if entry.clients == 1 else f"{entry.clients} clients")
    if entry.expires_in is not None:
        return f"expires in {entry.expires_in} s"
    return "in use by its running calls"


def workspace_lines(entries: Sequence[WorkspaceEntry], flag: str = "") -> list[str]:
    """One aligned line per live workspace (name, fingerprint, tabs, running calls, what keeps
    it), then the command releasing each paused one, with its fingerprint (``flag``: the
    instance option, as ``instance_flag`` gives it)."""
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
    paused = [entry for entry in entries if entry.paused]
    if paused:
        lines.append("PAUSED: repeated denials stopped its calls; this releases it:")
        lines.extend(
            f"  `ghostlight resume{flag} --workspace {printable(entry.fingerprint)}`"
            for entry in paused
        )
    return lines
