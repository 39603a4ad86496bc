"""``ghostlight status``: one screen on the instance: service, browsers, workspaces, work, hold."""

from __future__ import annotations

import json

import attrs

from ..browser.compat import skew_message
from ..transport.bridge import StatusReport
from ..transport.endpoints import Endpoints
from .control import query_status

NOT_RUNNING = "down (not running for this instance)"


async def fetch(endpoints: Endpoints) -> tuple[StatusReport | None, str]:
    """The live report, or None with why the service could not be asked."""
    try:
        return await query_status(endpoints), ""
    except FileNotFoundError:
        return None, NOT_RUNNING
    except ConnectionRefusedError:
        return None, "down (stale socket, nothing listening)"
    except OSError as exc:
        return None, f"down ({exc})"
    except Exception as exc:
        return None, f"unreachable: {exc}"


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
