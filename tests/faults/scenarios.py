"""The fault matrix: each fault against real executables, with its expected truthful outcome.

Every scenario returns a ``Row``: the fault, what was observed, and whether it passed. "Passed"
means: the in-flight call got a truthful answer (never a false success) within a bounded wait,
no effect ran twice, and a later call recovered.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import urllib.request
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import attrs
import trio
from trio_websocket import open_websocket_url

from ghostlight_trio.cli.mcp_client import result_text
from ghostlight_trio.transport.bridge import BRIDGE_MAJOR, BRIDGE_MINOR, ClientHello
from ghostlight_trio.transport.bridge_codec import encode_message
from ghostlight_trio.transport.framing import encode_frame

from .stack import (
    SLOW_SECONDS,
    alive,
    browser_available,
    call,
    call_until_ok,
    command_of,
    instance,
    is_false_success,
    open_instance,
    processes_with,
    summary,
)

HANG_BOUND = 90.0
"""No in-flight call may take longer than this to get its answer after a fault."""


@attrs.define
class Row:
    fault: str
    expected: str
    observed: str = ""
    passed: bool = False
    seconds: float = 0.0


Scenario = Callable[[Row], Awaitable[None]]


async def _tab(client: Any, url: str) -> int:
    created = await call(client, "tabs_create_mcp", {})
    assert summary(created) == "ok", created
    tab = created["structuredContent"]["tabId"]
    navigated = await call(client, "navigate", {"url": url, "tabId": tab})
    assert summary(navigated) == "ok", navigated
    return int(tab)


async def _slow_call_with_fault(
    client: Any, tab: int, url: str, fault: Callable[[], Awaitable[None]], after: float = 1.5
) -> tuple[Any, float]:
    """Navigate ``tab`` to the slow page and inject ``fault`` while it is in flight."""
    results: list[Any] = []
    started = trio.current_time()

    async def slow() -> None:
        results.append(await call(client, "navigate", {"url": f"{url}/slow", "tabId": tab}, HANG_BOUND))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(slow)
        await trio.sleep(after)
        await fault()
    return results[0], trio.current_time() - started


def _truthful(result: Any) -> bool:
    """An in-flight call interrupted by a fault: an error (unknown outcome or not sent), never ok."""
    return not is_false_success(result)


# --- the faults -------------------------------------------------------------------------------


async def sigkill_service(row: Row) -> None:
    async with open_instance() as it:
        await it.start_service()
        await it.start_browser()
        async with await it.connector() as client:
            tab = await _tab(client, it.pages.url)
            pid = (await it.status()).pid

            async def kill() -> None:
                os.kill(pid, signal.SIGKILL)

            result, waited = await _slow_call_with_fault(client, tab, it.pages.url, kill)
            # The connector starts a new service; the browser's relay reattaches to it.
            await trio.sleep(1)
            later = await call(client, "tabs_create_mcp", {})
            for _ in range(20):
                if summary(later) == "ok":
                    break
                await trio.sleep(1)
                later = await call(client, "tabs_create_mcp", {})
            # The new service found the call the old one was cut off during, and recorded it.
            recovered = [
                r for r in it.audit()
                if r["tool"] == "navigate" and r["outcome"] == "outcome_unknown" and r["reported"] is None
            ]  # fmt: skip
        slow_hits = it.pages.hits["/slow"]
        row.observed = (
            f"in-flight: {summary(result)} after {waited:.1f}s; slow page hits {slow_hits};"
            f" later call: {summary(later)}; cut-off calls recorded by the new service:"
            f" {len(recovered)}"
        )
        row.passed = (
            _truthful(result) and slow_hits <= 1 and summary(later) == "ok" and len(recovered) == 1
        )


async def sigkill_browser_connector(row: Row) -> None:
    async with open_instance() as it:
        await it.start_service()
        browser = await it.start_browser()
        async with await it.connector() as client:
            tab = await _tab(client, it.pages.url)
            relays = [
                p for p in processes_with(it.env["GHOSTLIGHT_INSTANCE"])
                if "ghostlight_browser_connector" in command_of(p)
                or "ghostlight-browser-connector" in command_of(p)
            ]
            assert relays, "no browser connector process found"

            async def kill() -> None:
                for pid in relays:
                    os.kill(pid, signal.SIGKILL)

            result, waited = await _slow_call_with_fault(client, tab, it.pages.url, kill)
            later = await call_until_ok(client, "tabs_create_mcp", within=60, pause=2)
            # The in-flight call's tab was quarantined; the extension flushes the reply it could
            # not send on its next link, and that reply frees the tab.
            freed = await call_until_ok(
                client, "get_page_text", within=SLOW_SECONDS + 30, pause=1, arguments={"tabId": tab}
            )
        row.observed = (
            f"in-flight: {summary(result)} after {waited:.1f}s; browser alive:"
            f" {browser.process.returncode is None}; later call: {summary(later)};"
            f" its tab afterwards: {summary(freed)}"
        )
        row.passed = _truthful(result) and summary(later) == "ok" and summary(freed) == "ok"


async def kill_browser(row: Row) -> None:
    async with open_instance() as it:
        await it.start_service()
        browser = await it.start_browser()
        async with await it.connector() as client:
            tab = await _tab(client, it.pages.url)

            async def kill() -> None:
                browser.process.send_signal(signal.SIGKILL)

            result, waited = await _slow_call_with_fault(client, tab, it.pages.url, kill)
            await it.start_browser()
            later = await call(client, "tabs_create_mcp", {})
        row.observed = (
            f"in-flight: {summary(result)} after {waited:.1f}s; after relaunch: {summary(later)}"
        )
        row.passed = _truthful(result) and summary(later) == "ok"


async def close_connector_stdin(row: Row) -> None:
    async with open_instance() as it:
        await it.start_service()
        await it.start_browser()
        client = await it.connector()
        tab = await _tab(client, it.pages.url)
        before = len(it.audit())
        process = client._process
        await client._send(
            {"jsonrpc": "2.0", "id": 99, "method": "tools/call",
             "params": {"name": "navigate", "arguments": {"url": f"{it.pages.url}/slow", "tabId": tab}}}
        )
        await trio.sleep(1.5)
        started = trio.current_time()
        await process.stdin.aclose()
        exited = None
        with trio.move_on_after(15):
            exited = await process.wait()
        waited = trio.current_time() - started
        if exited is None:
            process.kill()
        # The abandoned call drains and is audited once; the service keeps serving.
        records: list[dict[str, Any]] = []
        with trio.move_on_after(SLOW_SECONDS + 20):
            while True:
                records = [r for r in it.audit()[before:] if r["tool"] == "navigate"]
                if records:
                    break
                await trio.sleep(0.2)
        await trio.sleep(1)
        records = [r for r in it.audit()[before:] if r["tool"] == "navigate"]
        async with await it.connector() as again:
            later = await call(again, "tabs_create_mcp", {})
        row.observed = (
            f"connector exit {exited} after {waited:.1f}s; navigate audited"
            f" {len(records)}x as {[r['outcome'] for r in records]}; slow hits"
            f" {it.pages.hits['/slow']}; new connector: {summary(later)}"
        )
        row.passed = (
            exited == 0 and len(records) == 1 and it.pages.hits["/slow"] == 1
            and summary(later) == "ok"
        )


async def kill_mcp_client(row: Row) -> None:
    """The MCP client dies without closing the connector's stdin (parent death)."""
    async with open_instance() as it:
        await it.start_service()
        # A stand-in MCP client: initializes, opens a workspace, then waits to be killed
        # while holding the connector's stdin open.
        script = CLIENT_SCRIPT
        parent = await trio.lowlevel.open_process(
            [sys.executable, "-c", script, sys.executable], env=it.env,
            stdout=subprocess.PIPE, stdin=subprocess.PIPE,
        )
        line = b""
        with trio.fail_after(30):
            while not line.endswith(b"\n"):
                line += await parent.stdout.receive_some(1)
        connector_pid, answer = json.loads(line)
        before = await it.status()
        parent.kill()
        started = trio.current_time()
        with trio.move_on_after(10):
            while True:  # another process: nothing to wait on but its /proc entry
                if not alive(connector_pid):
                    break
                await trio.sleep(0.1)
        waited = trio.current_time() - started
        gone = not alive(connector_pid)
        if not gone:
            os.kill(connector_pid, signal.SIGKILL)
        after = await it.status()
        with trio.move_on_after(10):
            while after.workspaces >= before.workspaces or after.edges:
                await trio.sleep(0.2)
                after = await it.status()
        row.observed = (
            f"connector exited: {gone} after {waited:.1f}s; workspaces {before.workspaces}"
            f" -> {after.workspaces}; edges {before.edges} -> {after.edges}; first answer {answer}"
        )
        row.passed = gone and after.workspaces < before.workspaces and after.edges == 0


CLIENT_SCRIPT = r"""
import json, subprocess, sys
proc = subprocess.Popen([sys.argv[1], "-m", "ghostlight_mcp_connector"], stdin=subprocess.PIPE,
                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
def send(message):
    proc.stdin.write((json.dumps(message) + "\n").encode()); proc.stdin.flush()
send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25",
      "capabilities": {}, "clientInfo": {"name": "doomed", "version": "1"}}})
proc.stdout.readline()
send({"jsonrpc": "2.0", "method": "notifications/initialized"})
send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "update_plan",
      "arguments": {"domains": ["127.0.0.1"], "approach": ["look"]}}})
answer = json.loads(proc.stdout.readline())
print(json.dumps([proc.pid, "error" if answer.get("result", {}).get("isError") else "ok"]), flush=True)
import time
time.sleep(600)
"""


async def stop_service_worker(row: Row) -> None:
    async with open_instance() as it:
        await it.start_service()
        browser = await it.start_browser(
            "--remote-debugging-port=0", "--remote-debugging-address=127.0.0.1"
        )
        async with await it.connector() as client:
            tab = await _tab(client, it.pages.url)
            port = _devtools_port(browser.profile)

            async def stop_worker() -> None:
                await _close_workers(await trio.to_thread.run_sync(_browser_ws_url, port))

            result, waited = await _slow_call_with_fault(client, tab, it.pages.url, stop_worker)
            started = trio.current_time()
            later = await call_until_ok(client, "tabs_context_mcp", within=75, pause=2)
            recovered = trio.current_time() - started
        row.observed = (
            f"in-flight: {summary(result)} after {waited:.1f}s; later call: {summary(later)}"
            f" after {recovered:.0f}s (the keepalive alarm wakes the worker)"
        )
        row.passed = _truthful(result) and summary(later) == "ok"


def _devtools_port(profile: Path) -> int:
    import time

    deadline = time.monotonic() + 10
    path = profile / "DevToolsActivePort"
    while time.monotonic() < deadline:
        if path.exists() and path.read_text().strip():
            return int(path.read_text().splitlines()[0])
        time.sleep(0.1)
    raise RuntimeError("Chromium wrote no DevToolsActivePort")


def _browser_ws_url(port: int) -> str:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/version", timeout=5) as reply:
        return str(json.load(reply)["webSocketDebuggerUrl"])


async def _close_workers(ws_url: str) -> int:
    """Close the extension's service worker through the browser's CDP endpoint."""
    closed = 0
    async with open_websocket_url(ws_url) as ws:
        await ws.send_message(_json_dumps({"id": 1, "method": "Target.getTargets"}))
        targets = []
        while True:
            message = json.loads(await ws.get_message())
            if message.get("id") == 1:
                targets = message["result"]["targetInfos"]
                break
        for number, target in enumerate(targets, start=2):
            if target.get("type") == "service_worker" and target.get("url", "").startswith(
                "chrome-extension://"
            ):
                await ws.send_message(
                    _json_dumps({"id": number, "method": "Target.closeTarget",
                                 "params": {"targetId": target["targetId"]}})
                )
                while json.loads(await ws.get_message()).get("id") != number:
                    pass
                closed += 1
    if not closed:
        raise RuntimeError("no extension service worker target found")
    return closed


def _json_dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


async def audit_disk_full(row: Row) -> None:
    """The audit file's filesystem is full: calls that would reach a page are refused (not run
    unrecorded) with the reason and the fix, status says so, service-local calls still answer,
    and recording resumes, the held records first, when space returns."""
    with instance() as it:
        mount = it.endpoints.data_dir
        it.endpoints.ensure_private_dirs()
        mounted = False
        if os.geteuid() == 0:
            done = await trio.run_process(
                ["mount", "-t", "tmpfs", "-o", "size=64k,mode=0700", "tmpfs", str(mount)],
                capture_stdout=True, capture_stderr=True, check=False,
            )
            mounted = done.returncode == 0
        try:
            await it.start_service()
            async with await it.connector() as client:
                if mounted:
                    filler = mount / "filler"
                    fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o600)
                    try:
                        while os.write(fd, b"\0" * 1024):
                            pass
                    except OSError:
                        pass
                    finally:
                        os.close(fd)
                    how = "tmpfs of 64 KiB filled"
                else:  # root or not, nothing can be written where a directory stands
                    it.endpoints.audit_file.unlink(missing_ok=True)
                    it.endpoints.audit_file.mkdir()
                    how = "a directory in place of the audit file (no tmpfs mount allowed)"
                plan = {"domains": ["127.0.0.1"], "approach": ["look"]}
                planned = await call(client, "update_plan", plan)  # service-local: answers
                during = [await call(client, "tabs_create_mcp", {}) for _ in range(3)]
                said = getattr(await it.status(), "audit_problem", "")
                records_during = len(it.audit()) if mounted else 0
                if mounted:
                    filler.unlink()
                else:
                    it.endpoints.audit_file.rmdir()
                after = await call(client, "update_plan", plan)
                records = it.audit()
            log = it.endpoints.log_file.read_text(errors="replace") if it.endpoints.log_file.exists() else ""
            logged = "not written" in log
            refused = [
                r for r in during
                if summary(r) == "isError"
                and "Refused: the audit log cannot be written" in result_text(r)
                and "Free space on that disk" in result_text(r)
            ]  # fmt: skip
            held = [r["tool"] for r in records if r.get("rule") == "audit_unwritable"]
            row.observed = (
                f"{how}: update_plan {summary(planned)}; page calls"
                f" {['refused' if r in refused else summary(r) for r in during]}; status says"
                f" {said!r}; audit lines {records_during}; failure logged: {logged}; after space"
                f" returns: {summary(after)}, audit lines {len(records)} (refused calls recorded:"
                f" {len(held)})"
            )
            row.passed = (
                summary(planned) == "ok" and len(refused) == len(during) and bool(said)
                and records_during == 0 and summary(after) == "ok"
                and len(records) == 5 and held == ["tabs_create_mcp"] * 3
                and (logged or not mounted)
            )
        finally:
            await it.aclose()
            if mounted:
                with trio.CancelScope(shield=True):
                    await trio.run_process(
                        ["umount", "-l", str(mount)], capture_stdout=True, capture_stderr=True,
                        check=False,
                    )


async def socket_squatter(row: Row) -> None:
    """Another process of the same user listens on the service's socket path first."""
    async with open_instance() as it:
        it.endpoints.ensure_private_dirs()
        path = it.endpoints.edge_socket
        path.parent.mkdir(parents=True, exist_ok=True)
        squatter = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        squatter.bind(str(path))
        squatter.listen(8)
        received: list[bytes] = []
        stop = threading.Event()

        def serve() -> None:
            squatter.settimeout(0.2)
            while not stop.is_set():
                try:
                    peer, _ = squatter.accept()
                except (TimeoutError, OSError):
                    continue
                peer.settimeout(2)
                try:
                    # Pretends to be a service: answers with garbage, keeps what it hears.
                    peer.sendall(b"\x00\x00\x00\x05hello")
                    while chunk := peer.recv(65536):
                        received.append(chunk)
                except OSError:
                    pass
                peer.close()

        thread = threading.Thread(target=serve, daemon=True)
        thread.start()
        plan = {"domains": ["127.0.0.1"], "approach": ["look"]}
        try:
            async with await it.connector() as client:
                first = await call(client, "update_plan", plan, within=60)
        finally:
            stop.set()
            thread.join(5)
            squatter.close()  # its socket file stays behind, stale
        async with await it.connector() as client:
            later = await call(client, "update_plan", plan, within=60)
        heard = b"".join(received)
        leaked = b"update_plan" in heard
        row.observed = (
            f"while squatted: {summary(first)}; squatter heard {len(heard)} bytes, tool call"
            f" leaked: {leaked}; after the squatter left: {summary(later)}"
        )
        # Truthful while squatted: refused as not sent (proof failed), or served by a genuine
        # service that took the path over; never a call handed to the squatter.
        row.passed = (
            not leaked and summary(first) in ("ok", "json-rpc error -33001")
            and summary(later) == "ok"
        )


OTHER_UID_PROBE = Path(__file__).resolve().parents[1] / "other_uid_probe.py"


async def other_uid_peer(row: Row) -> None:
    if os.geteuid() != 0:
        row.observed = "skipped: needs root to run a peer as another uid"
        row.passed = True
        return
    async with open_instance() as it:
        await it.start_service()
        opened = [it.endpoints.runtime_dir, *it.endpoints.runtime_dir.parents]
        for directory in opened[: opened.index(it.base) + 1]:
            directory.chmod(0o711)
        it.endpoints.edge_socket.chmod(0o666)
        hello = encode_frame(
            encode_message(
                ClientHello(bridge_major=BRIDGE_MAJOR, bridge_minor=BRIDGE_MINOR, nonce=b"n" * 16)
            )
        )
        done = await trio.run_process(
            ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3",
             "-c", OTHER_UID_PROBE.read_text(), str(it.endpoints.edge_socket), hello.hex()],
            capture_stdout=True, capture_stderr=True, check=False,
        )
        got = done.stdout.decode().strip().splitlines()
        async with await it.connector() as client:
            later = await call(client, "update_plan", {"domains": ["x.test"], "approach": ["a"]})
        row.observed = (
            f"other uid received {got} bytes before close{done.stderr.decode()[-200:]};"
            f" owner call: {summary(later)}"
        )
        row.passed = got == ["0"] and summary(later) == "ok"


# --- the table --------------------------------------------------------------------------------

SCENARIOS: list[tuple[str, str, Scenario, bool, bool]] = [
    # fault, expected, scenario, needs a browser, quick enough for the default run
    ("SIGKILL the service mid-call", "in-flight call is an error (never ok); connector restarts"
     " the service; relay reattaches; later call ok; the new service records the cut-off call as"
     " outcome unknown", sigkill_service, True, False),
    ("SIGKILL the browser connector mid-call", "in-flight call is outcome-unknown; Chrome's"
     " native port reconnects; later call ok; the reply flushed on the new link frees the"
     " in-flight call's tab", sigkill_browser_connector, True, False),
    ("kill the browser mid-call", "in-flight call is an error; a relaunched browser serves the"
     " next call", kill_browser, True, False),
    ("close the connector's stdin mid-call", "connector exits 0; the abandoned call drains and is"
     " audited once; no re-navigation", close_connector_stdin, True, False),
    ("kill the MCP client (parent death)", "connector exits within seconds; its workspace and"
     " stream are released", kill_mcp_client, False, True),
    ("stop the extension's service worker mid-call", "in-flight call is an error; the keepalive"
     " alarm revives the worker; later call ok", stop_service_worker, True, False),
    ("audit disk full", "calls that would reach a page are refused, not run unrecorded (the"
     " reason and the fix); status says so; service-local calls answer; failure logged; records"
     " resume, the held ones first", audit_disk_full, False, True),
    ("squatter on the socket path", "no tool call ever reaches the squatter (refused as not sent,"
     " or a genuine service takes the path over); later calls ok", socket_squatter, False, True),
    ("peer from another uid", "closed before any frame; owner still served", other_uid_peer,
     False, True),
]


async def run_rows(selected: list[tuple[str, str, Scenario, bool, bool]]) -> list[Row]:
    rows = []
    for fault, expected, scenario, needs_browser, _quick in selected:
        row = Row(fault, expected)
        started = trio.current_time()
        if needs_browser and not browser_available():
            row.observed, row.passed = "skipped: no Chromium or extension", True
        else:
            try:
                with trio.fail_after(240):
                    await scenario(row)
            except BaseException as exc:  # noqa: BLE001 - reported in the table
                if isinstance(exc, KeyboardInterrupt):
                    raise
                row.observed = f"{row.observed} FAILED: {type(exc).__name__}: {exc}".strip()
                row.passed = False
        row.seconds = trio.current_time() - started
        rows.append(row)
    return rows


def format_table(rows: list[Row]) -> str:
    lines = ["fault -> observed outcome -> pass", ""]
    for row in rows:
        mark = "PASS" if row.passed else "FAIL"
        lines.append(f"[{mark}] {row.fault}  ({row.seconds:.1f}s)")
        lines.append(f"        expected: {row.expected}")
        lines.append(f"        observed: {row.observed}")
    passed = sum(row.passed for row in rows)
    lines.append("")
    lines.append(f"{passed}/{len(rows)} faults handled truthfully")
    return "\n".join(lines)
