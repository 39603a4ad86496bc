"""Wiring governance into the service: sources, governor, gate, browser probes and the reload
watcher that re-advertises the catalog."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, Protocol

import attrs
import trio

from ..browser.errors import BrowserFailure, OutcomeUnknown
from ..catalog.registry import Catalog
from ..engine.contracts import UncertainEffect, WorkspaceId
from .decision import HeldPages
from .gate import GovernanceGate
from .governor import Fingerprint, Governor
from .hosts import Blank, resolve_url
from .result_facts import member
from .sources import ORG_POLICY_PATH, PolicyFiles, PolicySources, settings_path, user_manifest_path

log = logging.getLogger("ghostlight.governance")

PROBE_TIMEOUT = 10.0
"""Bound on reading one tab's URL."""
PARK_TIMEOUT = 15.0
RELOAD_POLL = 1.0


class BrowserRequests(Protocol):
    async def request(
        self, workspace_id: Any, op: str, args: dict[str, Any], *, timeout: float  # noqa: ASYNC109
    ) -> dict[str, Any]: ...


@attrs.frozen
class GovernanceParts:
    governor: Governor
    gate: GovernanceGate


def default_files(data_dir: Path, org: Path | None = ORG_POLICY_PATH) -> PolicyFiles:
    return PolicyFiles(
        org=org, user=user_manifest_path(data_dir=data_dir), settings=settings_path(data_dir)
    )


def governance_parts(
    files: PolicyFiles,
    browser: BrowserRequests | None,
    *,
    fingerprint: Fingerprint | None = None,
    record_event: Callable[..., None] | None = None,
    held_pages: HeldPages | None = None,
    switches_file: Path | None = None,
) -> GovernanceParts:
    """``fingerprint`` is the workspace registry's audit name for a handle, so the user can
    resume one paused workspace by the name audit shows; ``record_event`` writes the audit
    trail's events; ``held_pages`` says what the service holds for a tab that left (see
    ``GovernanceGate``). ``switches_file`` keeps hold and the kill switch across restarts."""
    governor = Governor(
        PolicySources(files),
        fingerprint=fingerprint,
        record_event=record_event,
        switches_file=switches_file,
    )
    probe = park = fence = None
    if browser is not None:

        async def probe(workspace: WorkspaceId, tab: int) -> str:
            info = await browser.request(workspace, "tab_info", {"tabId": tab}, timeout=PROBE_TIMEOUT)
            url = str(info.get("url", ""))
            if resolve_url(url) == Blank():
                # about:blank opened by a page (a popup, a frame's window.open) carries that
                # page's origin and can reach it (opener, same-origin access): it is judged
                # as the site whose origin it has, not as an empty page.
                return await inherited_origin(browser, workspace, tab) or url
            return url

        async def park(workspace: WorkspaceId, tab: int) -> None:
            args = {"tabId": tab, "url": "about:blank", "timeoutMs": 5000}
            try:
                await browser.request(workspace, "navigate", args, timeout=PARK_TIMEOUT)
            except OutcomeUnknown as unknown:
                raise UncertainEffect(unknown.proof or "browser:park", unknown.message) from unknown

        async def fence(workspace: WorkspaceId, tab: int, patterns: tuple[str, ...]) -> None:
            args = {
                "tabId": tab,
                "method": "Network.setBlockedURLs",
                "params": {"urls": list(patterns)},
            }
            await browser.request(workspace, "cdp", args, timeout=PROBE_TIMEOUT)

    return GovernanceParts(
        governor,
        GovernanceGate(governor, probe=probe, park=park, fence=fence, held_pages=held_pages),
    )


async def inherited_origin(browser: BrowserRequests, workspace: WorkspaceId, tab: int) -> str | None:
    """The origin a blank page runs with, when it has one (None: an opaque, empty page)."""
    args = {
        "tabId": tab,
        "method": "Runtime.evaluate",
        "params": {"expression": "self.origin", "returnByValue": True},
    }
    try:
        answer = await browser.request(workspace, "cdp", args, timeout=PROBE_TIMEOUT)
    except (BrowserFailure, OutcomeUnknown):
        return None
    value = member(answer, "result", "result", "value")  # CDP's Runtime.evaluate reply
    if not isinstance(value, str) or value in ("", "null") or "://" not in value:
        return None
    # A blank page an extension opened (a tab parked or created through the browser's API)
    # runs with that extension's origin: it holds nothing of any site.
    return None if value.lower().startswith("chrome-extension://") else value


def advertise(governor: Governor, catalog: Catalog, names: Iterable[str]) -> None:
    """Show the tools the service tiers could allow, and always move the generation so every
    edge refetches (a reload can change decisions without changing the list)."""
    shown = governor.advertised(catalog.all_specs(), names)
    catalog.restricted = not governor.state.all_open
    if not catalog.set_available(shown):
        catalog.republish()


async def watch_policy(
    governor: Governor, catalog: Catalog, names: Iterable[str], *, poll: float = RELOAD_POLL
) -> None:
    """Hot reload: poll the policy files; on change install the new snapshot (a broken file
    keeps its last good version) and re-advertise."""
    handlers = list(names)
    while True:
        await trio.sleep(poll)
        if await governor.reload_off_loop_if_changed():
            advertise(governor, catalog, handlers)
