"""What ``status`` says about hold and the kill switch. The running service's own state when it
answers, and beside it the saved record (``switches.json``), which is what the CLI writes when no
service takes the command: the operator sees the switch they pressed while no service answers
(down, stopped, frozen), and whether a running service has applied it yet."""

from __future__ import annotations

import attrs

from ..governance.switches import SWITCHES_FILE, Switches, UnreadableSwitches, read_switches
from ..transport.bridge import StatusReport
from ..transport.endpoints import Endpoints
from .arguments import instance_flag

INDENT = " " * 11


@attrs.frozen
class Saved:
    """The saved switches, and why the record could not be read ("" when it could; a service
    starting then takes the kill switch, so ``switches`` says that)."""

    switches: Switches
    problem: str = ""


def saved(endpoints: Endpoints) -> Saved:
    path = endpoints.data_dir / SWITCHES_FILE
    try:
        return Saved(read_switches(path))
    except UnreadableSwitches as exc:
        return Saved(Switches(panicked=True), problem=str(exc))


def as_json(record: Saved) -> dict[str, object]:
    return {
        "held": record.switches.held,
        "panicked": record.switches.panicked,
        "problem": record.problem,
    }


def down_line(record: Saved, endpoints: Endpoints, *, pid: int | None, usual: bool) -> str:
    """The control line while no service answers: what is saved, and when it takes effect.
    ``pid``: a service holds the instance but is silent; ``usual``: none runs."""
    resume = f"`ghostlight resume{instance_flag(endpoints)}`"
    if record.problem:
        return (
            f"{record.problem}: a service that starts now starts with the kill switch on;"
            f" {resume} writes a good record"
        )
    switches = record.switches
    if not switches.names:
        return "nothing saved (no hold, no kill switch): agents may act once a service runs"
    when = (
        "as soon as the service runs again (it is not answering)" if pid is not None
        else "as soon as the service runs (it is down)" if usual
        else "as soon as a service answers (none answers here)"
    )
    if switches.panicked:
        also = " and HOLD" if switches.held else ""
        return (
            f"KILL SWITCH{also} saved: browser work stops and agents' calls are refused {when};"
            f" {resume} releases it"
        )
    return f"HOLD saved: agents' browser calls stop {when}; {resume} releases it"


def up_lines(report: StatusReport, record: Saved, endpoints: Endpoints) -> list[str]:
    """The running service's switches, then where the saved record differs: a switch saved
    while the service did not answer and not applied yet, or one it holds that a restart
    would not keep."""
    state = "PANIC" if report.panicked else "held by the user" if report.held else "agents may act"
    lines = [state]
    flag = instance_flag(endpoints)
    if record.problem:
        return [
            *lines,
            f"{record.problem}: a restart would start with the kill switch on;"
            f" `ghostlight resume{flag}` (or hold, panic) writes a good record",
        ]
    live = Switches(report.held, report.panicked).names
    missing = [name for name in record.switches.names if name not in live]
    if missing:
        lines.append(
            f"{_upper(missing)} saved while the service did not answer, not applied yet: it"
            f" applies a saved switch within a second of running (`ghostlight resume{flag}`"
            " drops it)"
        )
    extra = [name for name in live if name not in record.switches.names]
    if extra:
        lines.append(
            f"{' and '.join(extra)} not saved (a resume pressed while the service did not"
            " answer, or a save that failed): a restart would start without it;"
            f" `ghostlight resume{flag}` releases it now"
        )
    return lines


def _upper(names: list[str]) -> str:
    return " and ".join(name.upper() for name in names)
