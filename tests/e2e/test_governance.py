"""Governance in real Chromium: denied navigations never reach the browser, a redirect to a
denied host is parked on about:blank, never-touch sites are refused all-open (and every name
of this machine is one of them when one is), and the CLI's hold and kill switch stop a running
agent loop within one call."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import ExitStack, asynccontextmanager, contextmanager
from http.server import ThreadingHTTPServer
from typing import Any

import pytest
import trio
from edge.schema_oracle import SchemaOracle

from ghostlight_trio.browser import managed
from ghostlight_trio.browser.shore import BrowserShore
from ghostlight_trio.catalog.registry import Catalog, load_specs
from ghostlight_trio.cli.background import ensure_service
from ghostlight_trio.cli.control import query_status, wait_for_browser
from ghostlight_trio.cli.mcp_client import REVISION_2025_11_25, McpClient, McpError, result_text
from ghostlight_trio.engine.engine import WorkEngine
from ghostlight_trio.governance.assembly import GovernanceParts, governance_parts
from ghostlight_trio.governance.governor import state_from
from ghostlight_trio.governance.settings import parse_settings
from ghostlight_trio.governance.sources import Loaded, PolicyFiles
from ghostlight_trio.scheduler import Scheduler
from ghostlight_trio.transport.endpoints import Endpoints
from ghostlight_trio.workspace.registry import WorkspaceRegistry

from .conftest import (
    QuietHandler,
    Service,
    context_tools,
    held_page_server,
    launched_for,
    loopback_server,
    page_tools,
    text,
    tool_set,
)

POLICY = {
    "schema": 3,
    "name": "e2e",
    "version": "1",
    "grants": [{"id": "local", "hosts": {"allow": ["127.0.0.1"]}, "allowed": ["read", "action"]}],
}

ELSEWHERE = "elsewhere.test"
"""Another host, which the browser resolves to the loopback test server: a second site there
(every name of this machine being one host, no name of it can stand for another site)."""
ELSEWHERE_RESOLVES = f"--host-resolver-rules=MAP {ELSEWHERE} 127.0.0.1"


class _Logged(QuietHandler):
    log: list[tuple[str, str]] = []

    def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
        host = (self.headers.get("Host") or "").split(":")[0]
        type(self).log.append((host, self.path))
        if self.path.startswith("/slow"):
            time.sleep(3)  # the server has not answered when the action that asked comes back
        if self.path.startswith("/form"):
            target = self.path.split("to=", 1)[1]
            form = (
                f"<title>form</title><form action='{target}'><label>Name <input name=n></label>"
                f"<button>Send</button></form><a id=away href='{target}'>away</a>"
            )
            self.send_html(form.encode())
            return
        if self.path.startswith("/redirect"):
            target = self.path.split("to=", 1)[1]
            self.send_response(302)
            self.send_header("Location", target)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.send_html(f"<title>page {self.path}</title><p>{host}</p>".encode())


@pytest.fixture
def site() -> Iterator[tuple[int, list[tuple[str, str]]]]:
    """One loopback server reachable as 127.0.0.1 (granted) and as ELSEWHERE (not granted)."""
    log: list[tuple[str, str]] = []
    handler = type("Handler", (_Logged,), {"log": log})
    with loopback_server(handler) as port:
        yield port, log


async def _governed_service(
    endpoints: Endpoints, nursery: trio.Nursery, files: PolicyFiles, *more: Any
) -> Service:
    service, _ = await _governed(endpoints, nursery, files, *more)
    return service


async def _governed(
    endpoints: Endpoints, nursery: trio.Nursery, files: PolicyFiles, *more: Any
) -> tuple[Service, GovernanceParts]:
    """A service under ``files``, and its governance (whose policy a test may replace)."""
    registry = WorkspaceRegistry()
    scheduler = Scheduler()
    shore = BrowserShore(endpoints, registry, scheduler=scheduler)
    handlers = context_tools(registry, shore)
    for handler_set in more:
        handlers |= handler_set(registry, shore)
    governance = governance_parts(files, shore)
    engine = WorkEngine(
        catalog=Catalog(load_specs(), handlers),
        handlers=handlers,
        workspaces=registry,
        scheduler=scheduler,
        gate=governance.gate,
    )
    await nursery.start(shore.serve)
    return Service(endpoints, registry, shore, engine, nursery), governance


async def _tab(service: Service) -> tuple[str, int]:
    created = await service.call("tabs_create_mcp")
    assert created.kind == "ok", text(created)
    return created.workspace_id, created.structured["tabId"]


async def _live_url(service: Service, ws: str, tab: int) -> str:
    """Read independently of any tool result: the browser's own tab_info."""
    info = await service.shore.request(ws, "tab_info", {"tabId": tab}, timeout=10)
    return str(info["url"])


async def test_policy_denies_navigation_and_parks_denied_landings(endpoints, nursery, tmp_path, site):
    port, log = site
    policy = tmp_path / "policy.json"
    policy.write_text(json.dumps(POLICY))
    service = await _governed_service(endpoints, nursery, PolicyFiles(org=None, user=policy, settings=None))
    async with launched_for(service, ELSEWHERE_RESOLVES):
        ws, tab = await _tab(service)
        allowed = await service.call("navigate", ws, url=f"http://127.0.0.1:{port}/start", tabId=tab)
        assert allowed.kind == "ok", text(allowed)

        denied = await service.call("navigate", ws, url=f"http://{ELSEWHERE}:{port}/never", tabId=tab)
        assert denied.kind == "denied" and text(denied).startswith("Denied (D-"), text(denied)
        assert ELSEWHERE in text(denied)
        assert await _live_url(service, ws, tab) == f"http://127.0.0.1:{port}/start"
        assert not any(host == ELSEWHERE for host, _ in log)  # zero browser navigation

        bounce = f"http://127.0.0.1:{port}/redirect?to=http://{ELSEWHERE}:{port}/landed"
        parked = await service.call("navigate", ws, url=bounce, tabId=tab)
        assert parked.kind == "denied" and "about:blank" in text(parked), text(parked)
        assert await _live_url(service, ws, tab) == "about:blank"
        assert (ELSEWHERE, "/landed") in log  # the redirect really happened, then was parked


@pytest.mark.parametrize("how", ["form_fill", "click"])
@pytest.mark.parametrize("answered", ["/landed", "/slow"])
async def test_an_action_that_takes_the_tab_to_a_denied_host_is_withheld_and_parked(
    endpoints, nursery, tmp_path, site, how, answered
):
    """A form sent, or a link clicked, on an allowed page takes the tab to a host the policy
    denies: the answer is a denial naming that host, never the page's facts, and the tab is
    moved to about:blank, whether the denied page has come in yet or not."""
    port, log = site
    policy = tmp_path / "policy.json"
    [grant] = POLICY["grants"]
    policy.write_text(json.dumps(POLICY | {"grants": [grant | {"allowed": ["read", "action", "write"]}]}))
    files = PolicyFiles(org=None, user=policy, settings=None)
    service = await _governed_service(endpoints, nursery, files, page_tools, tool_set("form_fill"))
    async with launched_for(service, ELSEWHERE_RESOLVES):
        ws, tab = await _tab(service)
        form = f"http://127.0.0.1:{port}/form?to=http://{ELSEWHERE}:{port}{answered}"
        assert (await service.call("navigate", ws, url=form, tabId=tab)).kind == "ok"
        if how == "form_fill":
            acted = await service.call("form_fill", ws, tabId=tab, fields={"Name": "x"}, submit=True)
        else:
            found = await service.call("find", ws, tabId=tab, query="away link")
            ref = found.structured["results"][0]["ref"]
            acted = await service.call("computer", ws, tabId=tab, action="left_click", ref=ref)
        assert acted.kind == "denied", text(acted)
        assert ELSEWHERE in text(acted) and "about:blank" in text(acted), text(acted)
        assert "page /landed" not in text(acted) and "page /slow" not in text(acted)
        await trio.sleep(3.5)  # long enough for the slow page to have come in, had it been let
        assert await _live_url(service, ws, tab) == "about:blank"


async def test_never_touch_sites_are_refused_all_open(endpoints, nursery, tmp_path, site):
    port, log = site
    settings = tmp_path / "config.json"
    settings.write_text(json.dumps({"sacred_domains": [ELSEWHERE]}))
    files = PolicyFiles(org=None, user=None, settings=settings)
    service = await _governed_service(endpoints, nursery, files)
    async with launched_for(service, ELSEWHERE_RESOLVES):
        ws, tab = await _tab(service)
        refused = await service.call("navigate", ws, url=f"http://{ELSEWHERE}:{port}/x", tabId=tab)
        assert refused.kind == "denied" and "never-touch" in text(refused)
        fine = await service.call("navigate", ws, url=f"http://127.0.0.1:{port}/y", tabId=tab)
        assert fine.kind == "ok", text(fine)
        assert [(host, path) for host, path in log if path != "/favicon.ico"] == [("127.0.0.1", "/y")]


THIS_MACHINE = {
    # spelling: the listener it needs besides 127.0.0.1 (localhost and app.localhost reach
    # 127.0.0.1 or ::1, whichever listens)
    "localhost": None, "app.localhost": None, "LOCALHOST.": None, "0.0.0.0": None,
    "[::ffff:127.0.0.1]": None, "0x7f.1": None, "2130706433": None, "127.1": None,
    "127.0.0.2": "127.0.0.2", "[::ffff:127.0.0.2]": "127.0.0.2",
    "[::1]": "::1", "[::]": "::1", "[0:0:0:0:0:0:0:1]": "::1",
}  # fmt: skip


class _Reached(QuietHandler):
    log: list[tuple[str, str]] = []

    def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
        type(self).log.append((self.headers.get("Host") or "", self.path))
        self.send_html(f"<title>reached {self.path}</title>".encode())


class _V6Server(ThreadingHTTPServer):
    address_family = socket.AF_INET6


@contextmanager
def _loopback_everywhere() -> Iterator[tuple[int, list[tuple[str, str]], set[str]]]:
    """One handler behind listeners on one port at 127.0.0.1 and, where this machine lets
    them be opened, 127.0.0.2 and ::1 (never an outside interface); yields the port, the
    shared request log and the addresses listened on."""
    log: list[tuple[str, str]] = []
    handler = type("Handler", (_Reached,), {"log": log})
    with ExitStack() as stack:
        servers = [ThreadingHTTPServer(("127.0.0.1", 0), handler)]
        port = servers[0].server_address[1]
        for kind, address in ((ThreadingHTTPServer, "127.0.0.2"), (_V6Server, "::1")):
            try:
                servers.append(kind((address, port), handler))
            except OSError:
                pass
        for server in servers:
            server.daemon_threads = True
            threading.Thread(target=server.serve_forever, daemon=True).start()
            stack.callback(server.server_close)
            stack.callback(server.shutdown)
        yield port, log, {str(server.server_address[0]) for server in servers}


async def test_every_name_of_this_machine_meets_a_never_touch_entry_for_127_0_0_1(
    endpoints, nursery
):
    """One loopback server, reached by every name and spelling of this machine, is one host:
    each spelling first loads that server (so each is a real way in), then, with 127.0.0.1 on
    the never-touch list, each is refused before the browser asks the server for anything."""
    with _loopback_everywhere() as (port, log, listening):
        spellings = [s for s, needs in THIS_MACHINE.items() if needs is None or needs in listening]
        files = PolicyFiles(org=None, user=None, settings=None)
        service, governance = await _governed(endpoints, nursery, files)
        async with launched_for(service):
            ws, tab = await _tab(service)

            # All open: each spelling is a way to this one server.
            for index, spelling in enumerate(spellings):
                url = f"http://{spelling}:{port}/open/{index}"
                reached = await service.call("navigate", ws, url=url, tabId=tab)
                assert reached.kind == "ok", (spelling, text(reached))
                assert f"reached /open/{index}" in text(reached), (spelling, text(reached))
            assert {path for _, path in log} >= {f"/open/{i}" for i in range(len(spellings))}

            never = parse_settings({"sacred_domains": ["127.0.0.1"]})
            governance.governor.set_state(state_from(Loaded(settings=never)))
            for index, spelling in enumerate(spellings):
                url = f"http://{spelling}:{port}/never/{index}"
                refused = await service.call("navigate", ws, url=url, tabId=tab)
                assert refused.kind == "denied", (spelling, text(refused))
                assert "localhost is on the user's never-touch list" in text(refused), text(refused)
                # Like denials in a row pause a workspace; the user lets this one go on.
                governance.governor.attention.resume_one(ws)
            assert [path for _, path in log if path.startswith("/never/")] == []
    untried = [s for s in THIS_MACHINE if s not in spellings]
    if untried:
        pytest.skip(f"the others passed; not tried, this machine has no listener for: {untried}")


class _Framing(QuietHandler):
    """An allowed page (127.0.0.1) embedding a never-touch one (ELSEWHERE) that reports each
    click and key it gets back to its server."""

    log: list[tuple[str, str]] = []

    def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
        host = (self.headers.get("Host") or "").split(":")[0]
        type(self).log.append((host, self.path))
        port = self.server.server_address[1]
        if self.path.startswith("/outer"):
            body = (
                "<style>body{margin:0} iframe{position:absolute;left:0;top:0;width:400px;"
                f"height:300px;border:0}}</style><iframe src='http://{ELSEWHERE}:{port}/inner'>"
                "</iframe>"
            )
        else:
            body = (
                "<style>body{margin:0} input{width:380px;height:280px}</style>"
                "<input id=box onclick=\"fetch('/clicked')\" onkeydown=\"fetch('/typed')\">"
            )
        self.send_html(body.encode())


async def test_input_into_an_embedded_never_touch_frame_is_refused(endpoints, nursery, tmp_path):
    """The page is allowed; a click at coordinates inside the never-touch site's frame would
    reach that site: refused before anything is sent, and its server never hears of it."""
    log: list[tuple[str, str]] = []
    handler = type("Handler", (_Framing,), {"log": log})
    settings = tmp_path / "config.json"
    settings.write_text(json.dumps({"sacred_domains": [ELSEWHERE]}))
    with loopback_server(handler) as port:
        registry = WorkspaceRegistry()
        scheduler = Scheduler()
        shore = BrowserShore(endpoints, registry, scheduler=scheduler)
        handlers = {**context_tools(registry, shore), **page_tools(registry, shore)}
        governance = governance_parts(PolicyFiles(org=None, user=None, settings=settings), shore)
        engine = WorkEngine(
            catalog=Catalog(load_specs(), handlers), handlers=handlers, workspaces=registry,
            scheduler=scheduler, gate=governance.gate,
        )  # fmt: skip
        await nursery.start(shore.serve)
        service = Service(endpoints, registry, shore, engine, nursery)
        async with launched_for(service, ELSEWHERE_RESOLVES):
            ws, tab = await _tab(service)
            landed = await service.call("navigate", ws, url=f"http://127.0.0.1:{port}/outer", tabId=tab)
            assert landed.kind == "ok", text(landed)
            with trio.fail_after(10):
                while (ELSEWHERE, "/inner") not in log:  # noqa: ASYNC110 - the frame loads
                    await trio.sleep(0.05)
            click = await service.call(
                "computer", ws, tabId=tab, action="left_click", coordinate=[200, 150]
            )
            assert click.kind == "denied", text(click)
            assert f"inside an embedded frame of {ELSEWHERE}" in text(click)
            assert "never-touch" in text(click)
            await trio.sleep(0.5)
            assert (ELSEWHERE, "/clicked") not in log


# --- the CLI stops a running agent loop -------------------------------------------------------


def _cli(env: dict[str, str], *command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ghostlight_trio", *command],
        env=env, capture_output=True, text=True, timeout=30, check=False,
    )


@pytest.fixture
async def stack(endpoints: Endpoints, instance_env: dict[str, str]) -> AsyncIterator[dict[str, Any]]:
    process = await ensure_service(endpoints, "--keep-warm")
    browser = await managed.launch(endpoints, headless=True)
    try:
        await wait_for_browser(endpoints, within=30, launched=browser)
        yield {"env": instance_env, "endpoints": endpoints}
    finally:
        await browser.aclose()
        if process is not None and process.poll() is None:
            process.terminate()
            process.wait(timeout=15)


@asynccontextmanager
async def _connector_with_tab(env: dict[str, str], name: str) -> AsyncIterator[tuple[McpClient, int]]:
    """A real MCP connector process for the instance in ``env`` (client ``name``), and a new
    workspace tab opened through it."""
    async with await McpClient.spawn(
        [sys.executable, "-m", "ghostlight_mcp_connector"], env=env, era=REVISION_2025_11_25, client_name=name
    ) as client:
        created = await client.call_tool("tabs_create_mcp", {})
        yield client, created["structuredContent"]["tabId"]


async def _loop_until_stopped(client: McpClient, tab: int, url: str, results: list[tuple[float, str]]) -> None:
    """An agent loop: keep navigating until a call is refused (bounded)."""
    for _ in range(400):
        try:
            result = await client.call_tool("navigate", {"url": url, "tabId": tab})
        except McpError as stopped_in_flight:  # the kill switch cut the call in flight
            results.append((trio.current_time(), f"error: {stopped_in_flight}"))
            continue
        results.append((trio.current_time(), result_text(result)))
        if result.get("isError"):
            return


@pytest.mark.parametrize("switch", ["hold", "panic"])
async def test_cli_hold_and_panic_stop_a_running_agent_loop(stack, site, switch):
    port, _ = site
    env, endpoints = stack["env"], stack["endpoints"]
    async with _connector_with_tab(env, "loop") as (client, tab):
        results: list[tuple[float, str]] = []
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_loop_until_stopped, client, tab, f"http://127.0.0.1:{port}/", results)
            while len(results) < 3:  # noqa: ASYNC110 - another task appends
                await trio.sleep(0.05)
            done = await trio.to_thread.run_sync(_cli, env, switch)
            switched_at = trio.current_time()
            assert done.returncode == 0, done.stderr
        # Once the CLI has returned, at most the call already in flight completes; then the loop
        # gets the refusal and stops.
        refusal = results[-1][1]
        assert "NOT executed" in refusal, results[-3:]
        assert ("kill switch" in refusal) == (switch == "panic")
        completed_after = [m for at, m in results[:-1] if at > switched_at]
        assert len(completed_after) <= 1, completed_after
        report = await query_status(endpoints)
        assert (report.held, report.panicked) == (switch == "hold", switch == "panic")

        resumed = _cli(env, "resume")
        assert resumed.returncode == 0 and "Resumed" in resumed.stdout
        again = await client.call_tool("navigate", {"url": f"http://127.0.0.1:{port}/", "tabId": tab})
        assert not again.get("isError"), again
    audit = _cli(env, "audit", "show", "--decision", "held")
    assert audit.returncode == 0 and "navigate" in audit.stdout
    assert endpoints.audit_file.exists()  # noqa: ASYNC240


# --- the kill switch reaches the browser ------------------------------------------------------


@pytest.fixture
def hanging_site() -> Iterator[tuple[int, threading.Event]]:
    """``/hang`` never finishes loading (until teardown)."""
    with held_page_server("/hang", 120) as site:
        yield site


async def _panic_during_navigate(
    client: McpClient, env: dict[str, str], tab: int, url: str, asked: threading.Event
) -> dict[str, Any] | McpError:
    """Navigate ``tab`` to ``url``, engage the kill switch once the server was asked for the
    page, and return the navigate call's answer."""
    answers: list[dict[str, Any] | McpError] = []

    async def navigate() -> None:
        try:
            answers.append(await client.call_tool("navigate", {"url": url, "tabId": tab}))
        except McpError as error:
            answers.append(error)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(navigate)
        with trio.fail_after(30):
            while not asked.is_set():  # noqa: ASYNC110 - the server thread sets it
                await trio.sleep(0.05)
        # The browser is now waiting for a page the server has not sent yet.
        assert not answers
        done = await trio.to_thread.run_sync(_cli, env, "panic")
        assert done.returncode == 0, done.stderr
        # Hang guard, shorter than the extension's 10 s load wait the call would otherwise
        # sit out: the stop makes the browser answer now.
        with trio.fail_after(8):
            while not answers:  # noqa: ASYNC110 - the call's task appends
                await trio.sleep(0.05)
    [answer] = answers
    return answer


async def test_cli_panic_stops_a_call_blocked_in_the_browser_at_once(stack, hanging_site):
    port, asked = hanging_site
    env, endpoints = stack["env"], stack["endpoints"]
    async with _connector_with_tab(env, "stuck") as (client, tab):
        stopped = await _panic_during_navigate(client, env, tab, f"http://127.0.0.1:{port}/hang", asked)
        # Dispatched, then stopped: an unknown outcome owned up to, never success or "not run".
        assert isinstance(stopped, McpError), stopped
        data = stopped.error.get("data") or {}
        assert data.get("outcome") == "cancelled", stopped.error
        assert "kill switch" in data.get("detail", "") and "may or may not" in data["detail"]

        refused = await client.call_tool("navigate", {"url": f"http://127.0.0.1:{port}/", "tabId": tab})
        assert refused.get("isError") and "kill switch" in result_text(refused)
        assert "NOT executed" in result_text(refused)
        assert (await query_status(endpoints)).panicked

        resumed = _cli(env, "resume")
        assert resumed.returncode == 0 and "Resumed" in resumed.stdout
        again = await client.call_tool("navigate", {"url": f"http://127.0.0.1:{port}/after", "tabId": tab})
        assert not again.get("isError"), again
        assert "/after" in result_text(again)
    audit = _cli(env, "audit", "show")
    assert audit.returncode == 0 and "cancelled" in audit.stdout


@pytest.fixture
def slow_site() -> Iterator[tuple[int, threading.Event]]:
    """``/slow`` answers after 3 s."""
    with held_page_server("/slow", 3) as site:
        yield site


async def test_cli_panic_stops_a_page_load_an_agent_started(stack, slow_site):
    """The kill switch is the agents' Stop button: a page an agent asked for that has not
    arrived yet never lands once the user pressed it."""
    port, asked = slow_site
    env = stack["env"]
    async with _connector_with_tab(env, "loading") as (client, tab):
        start = await client.call_tool("navigate", {"url": f"http://127.0.0.1:{port}/start", "tabId": tab})
        assert not start.get("isError"), start
        stopped = await _panic_during_navigate(client, env, tab, f"http://127.0.0.1:{port}/slow", asked)
        assert isinstance(stopped, McpError), stopped
        await trio.sleep(4)  # past the moment the server answers the page
        resumed = _cli(env, "resume")
        assert resumed.returncode == 0, resumed.stderr
        context = await client.call_tool("tabs_context_mcp", {})
        [shown] = [t for t in context["structuredContent"]["tabs"] if t["tabId"] == tab]
        assert shown["url"] == f"http://127.0.0.1:{port}/start", shown


def _line(message: dict[str, Any]) -> bytes:
    return json.dumps(message).encode() + b"\n"


class _RawConnector:
    """A connector driven line by line (its pipes closed or messages sent by hand); each line it
    writes is held to the official schema of its revision (``SchemaOracle``)."""

    def __init__(self, env: dict[str, str]) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "ghostlight_mcp_connector"],
            env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        )
        self.oracle = SchemaOracle()

    def send(self, *messages: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        for message in messages:
            self.oracle.client_line(_line(message))
            self.process.stdin.write(_line(message))
        self.process.stdin.flush()

    async def read(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        line = await trio.to_thread.run_sync(self.process.stdout.readline)
        self.oracle.server_line(line)
        message: dict[str, Any] = json.loads(line)
        return message


async def _raw_navigation_under_way(raw: _RawConnector, port: int, asked: threading.Event) -> int:
    """Initialize, open a workspace tab, and send navigate (request id 2) to ``/slow``;
    returns the tab once the server was asked for the page."""
    raw.send(
        {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": REVISION_2025_11_25, "capabilities": {},
            "clientInfo": {"name": "raw", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
         "params": {"name": "tabs_create_mcp", "arguments": {}}},
    )
    await raw.read()
    created = await raw.read()
    tab: int = created["result"]["structuredContent"]["tabId"]
    raw.send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "navigate", "arguments": {"url": f"http://127.0.0.1:{port}/slow", "tabId": tab}}})
    with trio.fail_after(30):
        while not asked.is_set():  # noqa: ASYNC110 - the server thread sets it
            await trio.sleep(0.05)
    return tab


async def test_a_client_that_leaves_mid_call_is_not_recorded_as_answered(stack, slow_site):
    """A client that closes both its pipes while a navigation runs has left: the call is
    cancelled for it, and the audit never claims its answer was reported."""
    port, asked = slow_site
    env = stack["env"]
    raw = _RawConnector(env)
    connector = raw.process
    assert connector.stdin is not None and connector.stdout is not None
    try:
        await _raw_navigation_under_way(raw, port, asked)
        connector.stdin.close()
        connector.stdout.close()
        assert await trio.to_thread.run_sync(connector.wait, 30) == 0
        navigated: list[dict[str, Any]] = []
        with trio.fail_after(30):  # the navigation drains at the service, then is recorded
            while not navigated:
                await trio.sleep(0.2)
                shown = _cli(env, "audit", "show", "--tool", "navigate", "--json")
                navigated = [json.loads(line) for line in shown.stdout.splitlines() if line.strip()]
    finally:
        if connector.poll() is None:
            connector.kill()
            connector.wait()
    [record] = navigated
    assert record.get("reported") in (None, ""), record


async def test_a_client_s_cancel_of_a_navigation_frees_its_tab_for_the_next_call(stack, slow_site):
    """MCP cancellation through the real connector: the cancelled navigate gets no answer,
    the next call on the tab runs at once and sees the navigation still under way (it is not
    undone), and the audit records the cancelled call as cancelled and unreported."""
    port, asked = slow_site
    env = stack["env"]
    raw = _RawConnector(env)
    connector = raw.process
    assert connector.stdin is not None
    try:
        tab = await _raw_navigation_under_way(raw, port, asked)
        raw.send({"jsonrpc": "2.0", "method": "notifications/cancelled",
                  "params": {"requestId": 2, "reason": "user pressed Esc"}},
                 {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
                     "name": "get_page_text", "arguments": {"tabId": tab}}})
        with trio.fail_after(30):
            answer = await raw.read()
        assert answer["id"] == 3, answer  # nothing is sent for the cancelled request
        said = answer["result"]["content"][0]["text"]
        assert f"navigating to http://127.0.0.1:{port}/slow, which has not loaded yet" in said, said
        connector.stdin.close()
        assert await trio.to_thread.run_sync(connector.wait, 30) == 0
    finally:
        if connector.poll() is None:
            connector.kill()
            connector.wait()
    shown = _cli(env, "audit", "show", "--tool", "navigate", "--json")
    [record] = [json.loads(line) for line in shown.stdout.splitlines() if line.strip()]
    assert (record["outcome"], record.get("reported")) == ("cancelled", None), record
