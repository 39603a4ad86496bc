"""Tool-argument fuzzing through the real engine, for every advertised tool.

Arguments are drawn around each tool's ``inputSchema`` (right names with wrong types, missing
and extra fields, random objects). Whatever the schema rejects must come back as one corrective
``tool_error`` without the handler running or a single browser request going out. The engine's
fast validity predicate must never accept what the schema rejects.
"""

from __future__ import annotations

import functools
from typing import Any

import trio
import trio.lowlevel
import trio.testing
from hypothesis import given
from hypothesis import strategies as st

import ghostlight_trio.engine  # noqa: F401  (loads before workspace: they import each other)
from ghostlight_trio.catalog.registry import Catalog, load_specs
from ghostlight_trio.engine.audit import AuditRecord
from ghostlight_trio.engine.engine import WorkEngine
from ghostlight_trio.engine.validation import compile_fast_check
from ghostlight_trio.scheduler import Scheduler
from ghostlight_trio.tools.registry import ToolDeps, tool_handlers
from ghostlight_trio.tools.update_plan import PlanBook
from ghostlight_trio.transport.bridge import Message, Outcome, Progress, RequestContext, Start
from ghostlight_trio.workspace import WorkspaceRegistry, compose_tab_id

from .profiles import STATS, fuzz_settings
from .strategies import json_values

TAB = compose_tab_id(1, 7)
SPECS = load_specs()


class Browser:
    """Answers every request at once with an empty object, and remembers it."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, dict[str, Any]]] = []

    async def request(self, workspace_id: Any, op: str, args: dict[str, Any], *, timeout: float) -> dict[str, Any]:  # noqa: ASYNC109
        self.requests.append((op, args))
        await trio.lowlevel.checkpoint()
        return {}


class Sink:
    def __init__(self) -> None:
        self.outcomes: list[Outcome] = []

    def post(self, message: Message) -> None:
        if isinstance(message, Outcome):
            self.outcomes.append(message)

    def post_progress(self, message: Progress) -> None:
        pass


CONTEXT_TOOLS = ("tabs_context_mcp", "tabs_create_mcp", "navigate")
PAGE_TOOLS = (
    "computer", "find", "form_input", "get_page_text", "javascript_tool",
    "read_console_messages", "read_network_requests", "read_page", "resize_window",
)  # fmt: skip


def _handlers(registry: WorkspaceRegistry, browser: Browser, ran: list[str]) -> dict[str, Any]:
    every = tool_handlers(ToolDeps(browser, registry))  # type: ignore[arg-type]
    real = {
        **{name: every[name] for name in (*CONTEXT_TOOLS, *PAGE_TOOLS)},
        "update_plan": PlanBook().update_plan,
    }

    def watched(name: str, handler: Any) -> Any:
        async def run(call: Any) -> Any:
            ran.append(name)
            return await handler(call)

        return run

    return {name: watched(name, handler) for name, handler in real.items()}


ADVERTISED = sorted(
    _handlers(WorkspaceRegistry(), Browser(), []).keys() & {spec.name for spec in SPECS}
)


def _schema(name: str) -> dict[str, Any]:
    return next(spec.input_schema for spec in SPECS if spec.name == name)


@st.composite
def tool_arguments(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    name = draw(st.sampled_from(ADVERTISED))
    schema = _schema(name)
    properties = schema.get("properties", {})
    required = set(schema.get("required", []))
    arguments: dict[str, Any] = {}
    for key, prop in properties.items():
        if key in required or draw(st.booleans()):
            typed = draw(st.integers(0, 2)) > 0
            arguments[key] = draw(_typed(prop) if typed else json_values)
    if "tabId" in properties and draw(st.booleans()):
        arguments["tabId"] = TAB
    if draw(st.integers(0, 5)) == 0:
        arguments[draw(st.text(min_size=1, max_size=8))] = draw(json_values)
    return name, arguments


def _typed(prop: Any) -> st.SearchStrategy[Any]:
    """A value of the property's declared shape (still often invalid in its details)."""
    if not isinstance(prop, dict):
        return json_values
    if "enum" in prop:
        return st.sampled_from(prop["enum"])
    kind = prop.get("type")
    if isinstance(kind, list):
        kind = kind[0]
    if kind == "string":
        return st.text(max_size=20)
    if kind == "integer":
        return st.integers(-5, 3000)
    if kind == "number":
        return st.floats(-5, 3000, allow_nan=False)
    if kind == "boolean":
        return st.booleans()
    if kind == "array":
        return st.lists(_typed(prop.get("items", {})), max_size=3)
    if kind == "object":
        return st.dictionaries(st.sampled_from(sorted(prop.get("properties", {})) or ["k"]), json_values, max_size=3)
    return json_values


@functools.cache
def _fast_check(name: str) -> Any:
    return compile_fast_check(_schema(name))


async def _run(name: str, arguments: dict[str, Any]) -> tuple[Outcome, list[str], Browser, list[AuditRecord]]:
    registry = WorkspaceRegistry()
    browser = Browser()
    ran: list[str] = []
    audit: list[AuditRecord] = []
    handlers = _handlers(registry, browser, ran)
    engine = WorkEngine(
        catalog=Catalog(SPECS, available=handlers.keys()),
        handlers=handlers,
        workspaces=registry,
        scheduler=Scheduler(),
        audit=audit.append,
    )
    ws, _ = registry.open(None, "fuzz")
    registry.adopt_tabs(ws, [TAB])
    sink = Sink()
    async with trio.open_nursery() as nursery:
        session = engine.open_session(nursery, sink)
        reply = session.start(
            Start(sequence=1, operation=name, arguments=arguments, workspace_id=ws,
                  context=RequestContext(client_label="fuzz"))
        )
        assert getattr(reply, "work_id", None), reply
        with trio.fail_after(600):
            while True:  # mock time: each sleep jumps straight to the next deadline
                if sink.outcomes and not engine.active_work:
                    break
                await trio.sleep(1)
        session.abandon()
    [outcome] = sink.outcomes
    return outcome, ran, browser, audit


@fuzz_settings(quick=250, long=10_000)
@given(case=tool_arguments())
def test_fuzz_invalid_tool_arguments_never_reach_a_handler(case: tuple[str, dict[str, Any]]) -> None:
    name, arguments = case
    STATS["tool arguments: examples"] += 1
    catalog = Catalog(SPECS, available=ADVERTISED)
    problem = catalog.validate(name, arguments)
    fast = _fast_check(name)
    if fast is not None and fast(arguments):
        assert problem is None, (name, arguments, problem)  # the fast path agrees with the schema
    outcome, ran, browser, audit = trio.run(
        _run, name, arguments, clock=trio.testing.MockClock(autojump_threshold=0)
    )
    text = " ".join(getattr(block, "text", "") for block in outcome.content)
    assert len(audit) == 1
    if problem is not None:
        STATS["tool arguments: invalid (refused before any handler)"] += 1
        assert outcome.kind == "tool_error", (name, arguments, outcome)
        assert text == problem and "Accepted parameters" in text
        assert ran == [] and browser.requests == [], (name, arguments, ran, browser.requests)
    else:
        STATS["tool arguments: valid by schema"] += 1
        assert outcome.kind in {"ok", "tool_error", "denied", "outcome_unknown"}, outcome
        assert "failed inside Ghostlight" not in text, (name, arguments, text)
        for _op, args in browser.requests:
            tab = args.get("tabId")
            assert tab is None or tab == TAB, (name, arguments, args)
