"""An engine with the real governance gate, a fake browser (tab URLs, navigations) and a real
audit file."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import trio
from browser.session_driver import SessionDriver  # tests/ is on sys.path (rootdir packages)

from ghostlight_trio.audit.log import RotatingAuditLog
from ghostlight_trio.audit.records import read_lines
from ghostlight_trio.catalog.registry import Catalog, load_specs
from ghostlight_trio.engine.contracts import ToolCall, ToolHandler, ToolResult
from ghostlight_trio.engine.engine import WorkEngine
from ghostlight_trio.governance.decision import HeldPages
from ghostlight_trio.governance.gate import GovernanceGate
from ghostlight_trio.governance.governor import Governor, PolicyState, state_from
from ghostlight_trio.governance.manifest import parse_manifest_object
from ghostlight_trio.governance.settings import Settings, parse_settings
from ghostlight_trio.governance.sources import Loaded
from ghostlight_trio.scheduler import Scheduler
from ghostlight_trio.workspace import WorkspaceRegistry, compose_tab_id

TAB = compose_tab_id(1, 7)
OTHER_TAB = compose_tab_id(1, 8)


def manifest(*grants: dict[str, Any], mode: str = "enforce", **extra: Any) -> dict[str, Any]:
    return {"schema": 3, "name": "test", "version": "1", "mode": mode, "grants": list(grants), **extra}


def grant(gid: str, allow: list[str], allowed: list[str], deny: list[str] = (), **extra: Any) -> dict[str, Any]:  # type: ignore[assignment]
    return {"id": gid, "hosts": {"allow": allow, "deny": list(deny)}, "allowed": allowed, **extra}


def state(user: dict[str, Any] | None = None, never_touch: list[str] = (), redact: bool = True) -> PolicyState:  # type: ignore[assignment]
    settings: Settings = parse_settings({"sacred_domains": list(never_touch), "redact_secrets": redact})
    parsed = parse_manifest_object(user) if user is not None else None
    return state_from(Loaded(user=parsed, settings=settings))


class FakeBrowser:
    """Tab URLs the probe reads, and a record of every navigation that reached 'the browser'."""

    def __init__(self) -> None:
        self.urls: dict[int, str] = {}
        self.navigations: list[tuple[int, str]] = []
        self.probes = 0

    async def probe(self, workspace: Any, tab: int) -> str:
        self.probes += 1
        await trio.lowlevel.checkpoint()
        return self.urls.get(tab, "about:blank")

    async def park(self, workspace: Any, tab: int) -> None:
        self.navigations.append((tab, "about:blank"))
        self.urls[tab] = "about:blank"


class GovernedHarness(SessionDriver):
    """The shared session driver over an engine with the real gate, a fake browser and a real
    audit file. Calls may wait on mock time, so an outcome is awaited up to 300 s of it."""

    def __init__(
        self,
        nursery: trio.Nursery,
        handlers: Mapping[str, ToolHandler],
        audit_path: Path,
        policy: PolicyState | None = None,
        browser: FakeBrowser | None = None,
        held_pages: HeldPages | None = None,
    ) -> None:
        self.browser = browser or FakeBrowser()
        self.workspaces = WorkspaceRegistry()
        # As the service does: audit's names for workspaces are how the user resumes one.
        self.governor = Governor(fingerprint=self.workspaces.fingerprint)
        if policy is not None:
            self.governor.set_state(policy)
        self.gate = GovernanceGate(
            self.governor, probe=self.browser.probe, park=self.browser.park, held_pages=held_pages
        )
        self.audit_path = audit_path
        self.audit = RotatingAuditLog(audit_path)
        self.governor.listeners.append(lambda what: self.audit.event(what))
        self.engine = WorkEngine(
            catalog=Catalog(load_specs(), available=handlers.keys()),
            handlers=handlers,
            workspaces=self.workspaces,
            scheduler=Scheduler(),
            audit=self.audit,
            gate=self.gate,
        )
        super().__init__(self.engine, nursery, hang_guard=300)

    def workspace(self, *tabs: int) -> str:
        ws, _ = self.workspaces.open(None, "test", attached=True)
        assert self.workspaces.adopt_tabs(ws, tabs)
        return ws

    async def settled(self) -> None:
        with trio.fail_after(400):
            while self.engine.active_work:  # noqa: ASYNC110 - the engine's count
                await trio.sleep(0.01)

    def records(self) -> list[dict[str, Any]]:
        return [r for r in read_lines(self.audit_path) if "event" not in r]


def navigating_handler(
    browser: FakeBrowser, redirects: Mapping[str, str] = {}, unanswered: frozenset[str] = frozenset()  # noqa: B006
) -> ToolHandler:
    """A navigate handler that 'loads' the URL (following the given redirects); a URL in
    ``unanswered`` stays pending (its server has not answered: the tab keeps its page)."""

    async def navigate(call: ToolCall) -> ToolResult:
        url = str(call.arguments["url"])
        tab = int(call.arguments["tabId"])

        async def effect() -> None:
            browser.navigations.append((tab, url))
            if url not in unanswered:
                browser.urls[tab] = redirects.get(url, url)

        await call.effects.atomic(effect)
        structured = {"tabId": tab, "url": browser.urls[tab]}
        if url in unanswered:
            structured["pendingUrl"] = url
        return ToolResult.text("navigated", structured=structured)

    return navigate


def page_handler(browser: FakeBrowser, calls: list[str]) -> ToolHandler:
    async def handler(call: ToolCall) -> ToolResult:
        calls.append(call.context.operation)
        return ToolResult.text("done")

    return handler
