"""Real-browser fixtures: a loopback web server, the service's engine + browser shore, and a
managed headless Chromium running the real extension and the real native host."""

from __future__ import annotations

import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from contextlib import asynccontextmanager, contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import attrs
import pytest
import trio

import ghostlight_trio.engine  # noqa: F401  (loads before workspace: they import each other)
from ghostlight_trio.browser import managed
from ghostlight_trio.browser.discovery import installed_browsers
from ghostlight_trio.browser.shore import BrowserShore
from ghostlight_trio.catalog.registry import Catalog, load_specs
from ghostlight_trio.engine.engine import WorkEngine
from ghostlight_trio.scheduler import Scheduler
from ghostlight_trio.tools.registry import ToolDeps, ToolState, tool_handlers
from ghostlight_trio.transport.bridge import Message, Outcome, Progress, RequestContext, Start
from ghostlight_trio.transport.endpoints import Endpoints
from ghostlight_trio.workspace.registry import WorkspaceRegistry

EXTENSION = managed.default_extension_dir()
LATE_ANSWER_SECONDS = 0.25
"""How long /late-answer takes: longer than a page's quiet window after an action."""
SLOW_SECONDS = 6.0
UNANSWERED_SECONDS = 13.0
"""Longer than the extension's 10 s load wait: a navigation to ``/unanswered`` is still pending."""


def _skip_reason() -> str | None:
    if not (EXTENSION / "manifest.json").is_file():
        return "the extension is not built yet"
    if not installed_browsers():
        return "no Chromium-family browser installed"
    return None


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    reason = _skip_reason()
    for item in items:
        if "tests/e2e/" in str(item.fspath):
            item.add_marker(pytest.mark.e2e)
            if reason:
                item.add_marker(pytest.mark.skip(reason=reason))


PAGES = {
    "/": "<title>Ghostlight test page</title><h1>first</h1><a href='/second'>next</a>",
    "/second": "<title>Second page</title><p>second</p>",
}


class QuietHandler(BaseHTTPRequestHandler):
    """A loopback page handler that logs nothing and answers HTML."""

    def send_html(self, body: bytes, status: int = 200) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        try:
            self.wfile.write(body)
        except OSError:  # the browser went away mid-answer
            pass

    def log_message(self, *args: Any) -> None:
        pass


@contextmanager
def loopback_server(handler: type[BaseHTTPRequestHandler]) -> Iterator[int]:
    """Serve ``handler`` on 127.0.0.1 in a thread; yields the port."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    server.block_on_close = False
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


@contextmanager
def held_page_server(path: str, hold_s: float) -> Iterator[tuple[int, threading.Event]]:
    """A loopback server whose ``path`` page answers only after ``hold_s`` seconds (or once the
    server is closing), every other page at once; yields the port and an event set once a
    browser has asked for ``path``."""
    asked = threading.Event()
    release = threading.Event()

    class Handler(QuietHandler):
        def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
            if self.path == path:
                asked.set()
                release.wait(hold_s)
            self.send_html(f"<title>page {self.path}</title>".encode())

    with loopback_server(Handler) as port:
        try:
            yield port, asked
        finally:
            release.set()  # before the server shuts down, so no handler thread holds it up


class _Pages(QuietHandler):
    def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
        if self.path == "/report.bin":  # a file to download, not a page
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Disposition", 'attachment; filename="report.bin"')
            self.send_header("Content-Length", "4")
            self.end_headers()
            self.wfile.write(b"data")
            return
        if self.path == "/missing":  # the server's own error page
            self.send_html(b"<title>Not here</title><h1>404</h1>", status=404)
            return
        if self.path == "/nothing":  # an answer without a page
            self.send_response(204)
            self.end_headers()
            return
        if self.path == "/late-answer":  # what a page fetches, answered after a while
            time.sleep(LATE_ANSWER_SECONDS)
            self.send_html(b"arrived")
            return
        if self.path in ("/slow", "/unanswered"):
            time.sleep(SLOW_SECONDS if self.path == "/slow" else UNANSWERED_SECONDS)
            body = "<title>Slow page</title>"
        else:
            body = PAGES.get(self.path, "<title>Not found</title>")
        self.send_html(body.encode())


@pytest.fixture
def web() -> Iterator[str]:
    """A loopback HTTP server (content scripts cannot run on data: URLs)."""
    with loopback_server(_Pages) as port:
        yield f"http://127.0.0.1:{port}"


@attrs.define
class _Sink:
    outcomes: dict[str, Outcome] = attrs.Factory(dict)
    replies: list[Message] = attrs.Factory(list)
    changed: trio.Event = attrs.Factory(trio.Event)

    def post(self, message: Message) -> None:
        if isinstance(message, Outcome):
            self.outcomes[message.work_id] = message
        else:
            self.replies.append(message)
        self.changed.set()
        self.changed = trio.Event()

    def post_progress(self, message: Progress) -> None:
        pass


@attrs.define
class Service:
    """The service's browser-facing half, driven the way a bridge stream drives it."""

    endpoints: Endpoints
    registry: WorkspaceRegistry
    shore: BrowserShore
    engine: WorkEngine
    nursery: trio.Nursery
    sink: _Sink = attrs.Factory(_Sink)
    session: Any = None
    _sequence: int = 0

    def __attrs_post_init__(self) -> None:
        self.session = self.engine.open_session(self.nursery, self.sink)

    async def call(
        self, tool: str, workspace: str | None = None, *, within: float = 60, **arguments: Any
    ) -> Outcome:
        """Start one call and wait for its one terminal outcome."""
        self._sequence += 1
        start = Start(
            sequence=self._sequence,
            operation=tool,
            arguments=arguments,
            workspace_id=workspace,
            context=RequestContext(client_label="e2e"),
        )
        started = self.session.start(start)
        work_id = getattr(started, "work_id", None)
        if work_id is None:
            raise AssertionError(f"call refused: {started}")
        with trio.fail_after(within):
            while work_id not in self.sink.outcomes:
                await self.sink.changed.wait()
        return self.sink.outcomes[work_id]


HandlerSet = Callable[[WorkspaceRegistry, BrowserShore], Mapping[str, Any]]
"""Makes a group of tool handlers over the workspace registry and the shore."""


def tool_set(*names: str) -> HandlerSet:
    """The registry's handlers of ``names``, over a tool state of their own."""

    def make(registry: WorkspaceRegistry, shore: BrowserShore) -> dict[str, Any]:
        every = tool_handlers(ToolDeps(shore, registry))
        return {name: every[name] for name in names}

    return make


context_tools = tool_set("tabs_context_mcp", "tabs_create_mcp", "navigate")
page_tools = tool_set(
    "computer", "find", "form_input", "get_page_text", "javascript_tool",
    "read_console_messages", "read_network_requests", "read_page", "resize_window",
)  # fmt: skip
"""The trained page tools."""
more_tools = tool_set("tab_control", "wait_for", "dialog")


def build_engine(
    endpoints: Endpoints, *handler_sets: HandlerSet, after_call: Sequence[Any] = ()
) -> tuple[WorkspaceRegistry, BrowserShore, WorkEngine]:
    """A workspace registry, a browser shore and an engine offering the tools of ``handler_sets``
    (``after_call``: the engine's after-call observers, made from the shore)."""
    registry = WorkspaceRegistry()
    scheduler = Scheduler()
    shore = BrowserShore(endpoints, registry, scheduler=scheduler)
    handlers: dict[str, Any] = {}
    for handler_set in handler_sets:
        handlers.update(handler_set(registry, shore))
    engine = WorkEngine(
        catalog=Catalog(load_specs(), handlers),
        handlers=handlers,
        workspaces=registry,
        scheduler=scheduler,
        after_call=[make(shore) for make in after_call],
    )
    return registry, shore, engine


async def serve(
    endpoints: Endpoints,
    nursery: trio.Nursery,
    *handler_sets: HandlerSet,
    after_call: Sequence[Any] = (),
) -> Service:
    """``build_engine`` with its shore serving in ``nursery``: the service to drive."""
    registry, shore, engine = build_engine(endpoints, *handler_sets, after_call=after_call)
    await nursery.start(shore.serve)
    return Service(endpoints, registry, shore, engine, nursery)


@pytest.fixture
async def service(endpoints: Endpoints, nursery: trio.Nursery) -> AsyncIterator[Service]:
    yield await serve(endpoints, nursery, context_tools)


@pytest.fixture
async def browser(service: Service) -> AsyncIterator[managed.ManagedBrowser]:
    """A managed headless Chromium whose extension has connected to the service."""
    async with launched_for(service) as launched:
        yield launched


async def until(predicate: Any, *, within: float) -> None:
    """Poll state another task (or the browser) changes until it holds."""
    with trio.fail_after(within):
        while True:
            if predicate():
                return
            await trio.sleep(0.1)


async def dialog_when_open(service: Service, ws: str, tab: int, *, within: float = 10) -> Outcome:
    """The ``dialog`` tool's status once the page has opened a dialog (polled: it opens later)."""
    with trio.fail_after(within):
        while True:
            status = await service.call("dialog", ws, tabId=tab, action="status")
            assert status.kind == "ok", text(status)
            if status.structured["open"]:
                return status
            await trio.sleep(0.05)


def text(outcome: Outcome) -> str:
    return "\n".join(getattr(block, "text", "") for block in outcome.content)


# --- page tools (computer, read_page, find, form_input, ...) ----------------------------------

PAGE_TOOL_PAGES = {
    "/form": """<!doctype html><title>Form page</title>
<style>body{margin:0;font:16px sans-serif} label{display:block;margin:6px}</style>
<main><h1>Sign up</h1>
<form id="f" onsubmit="return false">
<label>Email <input id="email" name="email" type="text"></label>
<label>Password <input id="pw" type="password" value="hunter2"></label>
<label><input id="news" type="checkbox"> Newsletter</label>
<label><input id="r1" type="radio" name="plan" value="basic" checked> Basic</label>
<label><input id="r2" type="radio" name="plan" value="pro"> Pro</label>
<label>Country <select id="country"><option value="fr">France</option>
<option value="jp">Japan</option></select></label>
<div id="bio" contenteditable="true" aria-label="Bio">old bio</div>
<button id="gone" type="button">Remove me</button>
</form>
<div id="host"></div>
<iframe id="frame" srcdoc="<p>inside frame</p>" style="height:40px"></iframe>
</main>
<script>
const root = document.getElementById('host').attachShadow({mode: 'open'});
root.innerHTML = '<button id="shadowbtn" onclick="window.shadowClicks=(window.shadowClicks||0)+1">Shadow action</button>';
</script>""",
    "/targets": """<!doctype html><title>Targets</title>
<style>body{margin:0} button{position:absolute;width:120px;height:60px}
#a{left:40px;top:40px} #b{left:400px;top:200px} #c{left:200px;top:330px}
#field{position:absolute;left:40px;top:140px;width:240px}</style>
<button id="a">Alpha</button><button id="b">Bravo</button><button id="c">Charlie</button>
<input id="field" aria-label="Field">
<script>
window.hits = [];
for (const id of ['a','b','c']) {
  const el = document.getElementById(id);
  el.addEventListener('click', (e) => hits.push(id + ':click:' + e.detail));
  el.addEventListener('dblclick', () => hits.push(id + ':dblclick'));
  el.addEventListener('contextmenu', (e) => { e.preventDefault(); hits.push(id + ':contextmenu'); });
  el.addEventListener('mouseover', () => hits.push(id + ':over'));
}
</script>""",
    "/long": """<!doctype html><title>Long page</title>
<style>body{margin:0} .row{height:200px;border-bottom:1px solid #ccc}</style>
<div id="top">Top</div>
""" + "".join(f'<div class="row" id="row{i}">Row {i}</div>' for i in range(40)) + """
<button id="bottom" onclick="window.bottomClicked=true">Bottom button</button>""",
    "/noisy": """<!doctype html><title>Noisy page</title>
<button id="go" onclick="go()">Go</button>
<script>
function go() {
  console.log('hello from the page', 42);
  console.warn('careful now');
  console.error('something failed');
  fetch('/api/data?x=1').then(r => r.text()).then(t => console.log('fetched', t.length));
  fetch('/missing-thing');
}
</script>""",
    "/throws": """<!doctype html><title>Throwing page</title>
<article><h1>Story</h1><p>""" + ("Lorem ipsum dolor sit amet. " * 80) + """</p></article>
<script>console.log('before the throw'); throw new Error('load-time kaboom');</script>""",
    "/api/data": '{"ok": true}',
    # Emoji cut in half by a script, as pages do with ``text.slice(0, n)``.
    "/halves": """<!doctype html><title>halves</title><p id="cut">x</p>
<input id="field" aria-label="Field">
<script>
const smile = "\\ud83d\\ude00";
document.title = "Half " + smile.slice(0, 1) + " title";
document.getElementById("cut").textContent = "Cut here " + smile.slice(1) + " and " + smile.slice(0, 1) + " twice";
document.getElementById("field").value = "typed" + smile.slice(0, 1);
</script>""",
}
PAGES.update(PAGE_TOOL_PAGES)


def page_tool_engine(endpoints: Endpoints) -> tuple[WorkspaceRegistry, BrowserShore, WorkEngine]:
    """The engine with the context tools and the page tools registered."""
    return build_engine(endpoints, context_tools, page_tools)


@pytest.fixture
async def tools_service(endpoints: Endpoints, nursery: trio.Nursery) -> AsyncIterator[Service]:
    registry, shore, engine = page_tool_engine(endpoints)
    await nursery.start(shore.serve)
    yield Service(endpoints, registry, shore, engine, nursery)


async def launch_for(service: Service, *extra: str) -> managed.ManagedBrowser:
    """A managed headless Chromium (with extra flags) connected to ``service``."""
    launched = await managed.launch(
        service.endpoints, headless=True, no_sandbox=True, extra_args=list(extra)
    )
    try:
        await launched.wait_connected(lambda: service.shore.connected_count > 0, within=30)
    except BaseException:
        await launched.aclose()
        raise
    return launched


@asynccontextmanager
async def launched_for(service: Service, *extra: str) -> AsyncIterator[managed.ManagedBrowser]:
    """``launch_for``, closing the browser on the way out."""
    launched = await launch_for(service, *extra)
    try:
        yield launched
    finally:
        await launched.aclose()


@pytest.fixture
async def tools_browser(tools_service: Service) -> AsyncIterator[managed.ManagedBrowser]:
    """A managed headless Chromium connected to ``tools_service``."""
    async with launched_for(tools_service) as launched:
        yield launched


# --- every page tool, tab_control, wait_for and dialog ------------------------------------------


@pytest.fixture
async def more_service(endpoints: Endpoints, nursery: trio.Nursery) -> AsyncIterator[Service]:
    """The engine with the context tools, the page tools and tab_control / wait_for / dialog."""
    yield await serve(endpoints, nursery, context_tools, page_tools, more_tools)


@pytest.fixture
async def more_browser(more_service: Service) -> AsyncIterator[managed.ManagedBrowser]:
    async with launched_for(more_service) as launched:
        yield launched


# --- compositions and form_fill (tests/e2e/test_compositions.py, test_form_fill.py) -----------


@pytest.fixture
async def extended_service(endpoints: Endpoints, nursery: trio.Nursery) -> AsyncIterator[Service]:
    """The engine with the page tools, tab_control / wait_for / dialog, narrate, form_fill,
    file_upload, upload_image, gif_creator, act_on, script and browser_batch, all over one tool
    state (kept screenshots and coordinate models); its recorder is the engine's after-call
    observer."""
    states: list[ToolState] = []

    def extended(registry: WorkspaceRegistry, shore: BrowserShore) -> dict[str, Any]:
        deps = ToolDeps(shore, registry)
        states.append(deps.state)
        every = tool_handlers(deps)
        return {name: every[name] for name in every if name not in ("update_plan", "explain")}

    yield await serve(
        endpoints,
        nursery,
        extended,
        after_call=[lambda shore: states[0].recorder.after_call],
    )


@pytest.fixture
async def extended_browser(extended_service: Service) -> AsyncIterator[managed.ManagedBrowser]:
    async with launched_for(extended_service) as launched:
        yield launched


async def page_value(service: Service, ws: str, tab: int, expression: str) -> Any:
    """An expression's value read straight over the shore (independent of the tools)."""
    answer = await service.shore.request(
        ws,
        "cdp",
        {
            "tabId": tab,
            "method": "Runtime.evaluate",
            "params": {"expression": expression, "returnByValue": True},
        },
        timeout=20,
    )
    return answer["result"]["result"].get("value")


async def tab_info(service: Service, ws: str, tab: int) -> dict[str, Any]:
    return await service.shore.request(ws, "tab_info", {"tabId": tab}, timeout=20)


async def open_page(service: Service, url: str, ws: str | None = None) -> tuple[str, int]:
    """A new workspace tab (in ``ws``, or a new workspace) navigated to ``url``."""
    created = await service.call("tabs_create_mcp", ws)
    assert created.kind == "ok", text(created)
    ws, tab = created.workspace_id, created.structured["tabId"]
    landed = await service.call("navigate", ws, url=url, tabId=tab)
    assert landed.kind == "ok", text(landed)
    return ws, tab


# --- same-origin frames and shadow DOM (tests/e2e/test_frames.py) -----------------------------

# The outer frame sits at an offset, with a border and padding, so a click that ignored the
# frame's position would land on the decoy buttons under the frame's top-left corner instead.
FRAME_PAGES = {
    "/frames": """<!doctype html><title>Frames page</title>
<style>body{margin:0;font:16px sans-serif} #decoy{position:absolute;left:0;top:0}
#inner{position:absolute;left:220px;top:100px;width:420px;height:240px;border:6px solid #333;
padding:9px} #opaque{position:absolute;left:0;top:60px;width:200px;height:80px}
#host{position:absolute;left:20px;top:400px}</style>
<button id="decoy" onclick="window.decoyClicks=(window.decoyClicks||0)+1">Decoy</button>
<iframe id="inner" title="Inner form" src="/frames/inner"></iframe>
<iframe id="opaque" title="Sandboxed widget" sandbox="allow-scripts"
 srcdoc="<button>Hidden from us</button>"></iframe>
<shadow-card id="host"></shadow-card>
<script>
customElements.define('shadow-card', class extends HTMLElement {
  connectedCallback() {
    const root = this.attachShadow({mode: 'open'});
    root.innerHTML = '<label>Nickname <input id="nick"></label>'
      + '<button id="shadowgo" onclick="this.getRootNode().host.dataset.clicks='
      + '(+(this.getRootNode().host.dataset.clicks||0))+1">Shadow go</button>';
  }
});
</script>""",
    "/frames/inner": """<!doctype html><title>Inner</title>
<style>body{margin:0;font:16px sans-serif} label{display:block;margin:4px}
#framego{position:absolute;left:150px;top:150px;width:140px;height:40px}</style>
<h2>Delivery</h2>
<label>City <input id="city" type="text"></label>
<label><input id="gift" type="checkbox"> Gift wrap</label>
<label>Speed <select id="speed"><option value="std">Standard</option>
<option value="exp">Express</option></select></label>
<button id="framego" onclick="window.frameClicks=(window.frameClicks||0)+1">Frame go</button>""",
}
PAGES.update(FRAME_PAGES)


# --- large pages and open shadow roots (tests/e2e/test_reader_limits.py) -----------------------

# Rows of a div holding a span and a button, built by the page itself: /limits/rows has 10000
# rows (30005 elements), /limits/late 8000 rows and then a last line (about 24000 elements),
# /limits/huge 70000 rows (more elements than one wait_for observation reads) and a last line.
_ROWS_SCRIPT = """<script>
const rows = document.createDocumentFragment();
for (let i = 0; i < %d; i++) {
  const row = document.createElement('div');
  row.innerHTML = '<span>Row ' + i + '</span><button>Btn ' + i + '</button>';
  rows.append(row);
}
document.body.prepend(rows);
</script>"""
LIMIT_PAGES = {
    "/limits/rows": "<!doctype html><title>Rows</title><body>" + _ROWS_SCRIPT % 10000,
    "/limits/late": "<!doctype html><title>Late</title><body><p id='end'>The very last line</p>"
    + _ROWS_SCRIPT % 8000,
    "/limits/huge": "<!doctype html><title>Huge</title><body><p id='end'>The very last line</p>"
    + _ROWS_SCRIPT % 70000,
    "/limits/shadow": """<!doctype html><title>Shadow text</title>
<p>Before the card</p>
<shadow-text id="card"><span>slotted light words</span></shadow-text>
<p>After the card</p>
<script>
customElements.define('shadow-text', class extends HTMLElement {
  connectedCallback() {
    const root = this.attachShadow({mode: 'open'});
    root.innerHTML = '<style>:host{display:block}</style><button>Shadow Button</button>'
      + '<div>pre <slot></slot> post</div><p>shadow paragraph text</p>';
  }
});
</script>""",
}
PAGES.update(LIMIT_PAGES)


# --- a cover over a button at the instant of a press (test_click_truth.py, test_act_on.py) -----

# "Pay now" logs its clicks in window.events. A "Flash sale" dialog covers the whole page:
# /cover/press from the instant each press goes down until just after it comes up (the press
# goes down on the button, comes up on the cover, and the click reaches neither);
# /cover/after once the button took a click, until the next press comes up (a second press
# lands on the cover); /cover/arrive from when the pointer comes over the button until the
# next press comes up. Each is set off by the input itself: no timing decides it.
_COVER = """<!doctype html><title>Checkout</title>
<style>body{margin:0;font:16px sans-serif} #pay{margin:80px;width:160px;height:50px}
#cover{display:none;position:fixed;inset:0;z-index:50;background:rgba(0,0,0,.3)}</style>
<button id="pay" onclick="L('pay')" ondblclick="L('pay dbl')">Pay now</button>
<div id="cover" role="dialog" aria-label="Flash sale" onclick="L('cover')"></div>
<script>window.events = []; function L(m) { events.push(m); }
const show = () => { cover.style.display = 'block'; };
const hide = () => setTimeout(() => { cover.style.display = 'none'; }, 0);
%s</script>"""
COVER_PAGES = {
    "/cover/press": _COVER % "addEventListener('pointerdown', show, true);"
    " addEventListener('pointerup', hide, true);",
    "/cover/after": _COVER % "pay.addEventListener('click', show);"
    " cover.addEventListener('pointerup', hide);",
    "/cover/arrive": _COVER % "pay.addEventListener('pointerover', show);"
    " addEventListener('pointerup', hide, true);",
}
PAGES.update(COVER_PAGES)
