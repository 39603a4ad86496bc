"""``ghostlight instances``: every instance that exists, whether its service runs, its hold and
kill switch, and its paused workspaces. It only looks: a running service is asked for its
status over the bridge; none is ever started, and nothing is written."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

import attrs
import trio

from ..transport.endpoints import Endpoints
from . import instances, json_output

if TYPE_CHECKING:
    from ..transport.bridge import StatusReport

ASK_TIMEOUT = 1.0
"""How long a running service gets to answer; one that does not is listed as not answering."""
NAME_WIDTH = 16
"""A longer name gets a line of its own, so that a row stays within 80 columns."""

@attrs.frozen
class Row:
    instance: str
    running: bool
    pid: int | None
    answering: bool
    held: bool
    panicked: bool
    paused_workspaces: int | None
    """None when no service answered (paused workspaces live only in a running service)."""

def add_parser(commands: Any) -> None:
    listing = commands.add_parser(
        "instances", help="list the instances, their service and switches (starts nothing)"
    )
    json_output.add_option(listing)

def run(args: argparse.Namespace) -> int:
    rows = trio.run(collect)
    if args.json:
        json_output.emit({"instances": [attrs.asdict(row) for row in rows]})
    elif not rows:
        print(
            "No instances yet: `ghostlight install` sets one up for your MCP clients and"
            " browsers, `ghostlight service start` starts its service."
        )
    else:
        print("\n".join(table(rows)))
    return 0

async def collect() -> list[Row]:
    """One row per existing instance, running services asked side by side."""
    names = instances.known()
    rows: dict[str, Row] = {}

    async def one(name: str) -> None:
        rows[name] = await row(Endpoints.for_instance(name))

    async with trio.open_nursery() as nursery:
        for name in names:
            nursery.start_soon(one, name)
    return [rows[name] for name in names]

async def row(endpoints: Endpoints) -> Row:
    # Imported here: the service package is slow to import, and every command loads this parser.
    from ..service import lock
    from . import control, switch_status

    holder = lock.data_lock_holder(endpoints)
    report: StatusReport | None = None
    if holder is not None:
        with trio.move_on_after(ASK_TIMEOUT):
            try:
                report = await control.query_status(endpoints)
            except Exception:  # any failure to answer: listed as not answering
                report = None
    saved = switch_status.saved(endpoints).switches
    pid = int(holder.pid) if holder is not None and holder.pid.isdigit() else None
    return Row(
        instance=endpoints.instance,
        running=holder is not None,
        pid=report.pid if report is not None else pid,
        answering=report is not None,
        held=report.held if report is not None else saved.held,
        panicked=report.panicked if report is not None else saved.panicked,
        paused_workspaces=(
            sum(1 for entry in report.workspace_list if entry.paused) if report is not None else None
        ),
    )

def table(rows: list[Row]) -> list[str]:
    """Aligned lines, at most 80 columns, a header first."""
    lines = [_line("INSTANCE", "SERVICE", "SWITCHES", "PAUSED")]
    for each in rows:
        cells = (_service(each), _switches(each), _paused(each))
        if len(each.instance) > NAME_WIDTH:
            lines.append(each.instance)
            lines.append(_line("", *cells))
        else:
            lines.append(_line(each.instance, *cells))
    return lines

def _line(name: str, service: str, switches: str, paused: str) -> str:
    return f"{name:<{NAME_WIDTH}}  {service:<26}  {switches:<17}  {paused}".rstrip()

def _service(each: Row) -> str:
    pid = f", pid {each.pid}" if each.pid is not None else ""
    if not each.running:
        return "stopped"
    return f"running{pid}" if each.answering else f"not answering{pid}"

def _switches(each: Row) -> str:
    on = [name for name, flag in (("hold", each.held), ("kill switch", each.panicked)) if flag]
    return ", ".join(on) or "off"

def _paused(each: Row) -> str:
    return "-" if each.paused_workspaces is None else str(each.paused_workspaces)
