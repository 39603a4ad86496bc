"""Tier intersection: every tier must allow, a deny anywhere stands, nothing widens, and a tier
that allows everything changes no decision at all."""

from __future__ import annotations

import itertools

import attrs
import pytest
from browser.session_driver import text  # tests/ is on sys.path (rootdir packages)

from ghostlight_trio.catalog.registry import load_specs
from ghostlight_trio.governance.directory import requirement
from ghostlight_trio.governance.hosts import resolve_url
from ghostlight_trio.governance.manifest import parse_manifest_object
from ghostlight_trio.governance.policy import TierPolicy, combine

from .harness import (
    TAB,
    FakeBrowser,
    GovernedHarness,
    grant,
    manifest,
    navigating_handler,
    page_handler,
    state,
)

NARROW = manifest(
    grant("docs", ["docs.example.com", "*.example.org"], ["read", "action"], deny=["x.example.org"]),
    grant("forms", ["forms.example.com"], ["read", "write"], mode="observe"),
)
ALLOW_ALL = manifest(grant("everything", ["*"], ["read", "action", "write", "execute"]))
URLS = [
    "https://docs.example.com/", "https://DOCS.example.com./a", "https://a.example.org/",
    "https://x.example.org/", "https://example.org/", "https://forms.example.com/",
    "https://evil.test/", "https://docs.example.com@evil.test/", "about:blank", "data:,x",
    "https://bad host/",
]
SPECS = {spec.name: spec for spec in load_specs()}
CALLS = [
    ("navigate", {"url": "u"}),
    ("computer", {"action": "left_click"}),
    ("computer", {"action": "screenshot"}),
    ("computer", {"action": "wait"}),
    ("form_input", {}),
    ("javascript_tool", {}),
    ("form_fill", {"submit": True}),
    ("tabs_context_mcp", {}),
    ("update_plan", {}),
    ("dialog", {"action": "explode"}),  # unclassified: unknown_action
]


def _tier(value):
    return TierPolicy(parse_manifest_object(value))


@pytest.mark.parametrize(("url", "call"), list(itertools.product(URLS, CALLS)))
def test_an_allow_all_restriction_changes_no_decision(url, call) -> None:
    tool, arguments = call
    needed = requirement(SPECS[tool], arguments)
    where = resolve_url(url) if tool != "tabs_context_mcp" and tool != "update_plan" else None
    alone = combine([("user", _tier(NARROW))], needed, where)
    both = combine([("user", _tier(NARROW)), ("restriction", _tier(ALLOW_ALL))], needed, where)
    assert both == alone
    assert repr(attrs.asdict(both)).encode() == repr(attrs.asdict(alone)).encode()


@pytest.mark.parametrize(("url", "call"), list(itertools.product(URLS, CALLS)))
def test_a_restriction_never_widens(url, call) -> None:
    tool, arguments = call
    needed = requirement(SPECS[tool], arguments)
    where = resolve_url(url)
    narrow = _tier(manifest(grant("r", ["docs.example.com"], ["read"])))
    alone = combine([("user", _tier(NARROW))], needed, where)
    both = combine([("user", _tier(NARROW)), ("restriction", narrow)], needed, where)
    if alone.verdict == "deny":
        assert both == alone  # the service's deny stands, with its own id
    if both.verdict == "allow":
        assert alone.verdict == "allow"


def test_no_tiers_is_all_open_and_one_tier_denies_for_all() -> None:
    needed = requirement(SPECS["navigate"], {})
    where = resolve_url("https://evil.test/")
    assert combine([], needed, where).rule == "all_open"
    org = _tier(manifest(grant("org", ["*"], ["read"], deny=["evil.test"])))
    user = _tier(ALLOW_ALL)
    decided = combine([("org", org), ("user", user)], needed, where)
    assert (decided.verdict, decided.rule, decided.tier, decided.grant) == ("deny", "denied_domain", "org", "org")


async def test_byte_identical_results_and_records_through_the_engine(nursery, tmp_path) -> None:
    results = {}
    for label, restriction in (("alone", None), ("with", ALLOW_ALL)):
        browser = FakeBrowser()
        calls: list[str] = []
        handlers = {
            "navigate": navigating_handler(browser),
            "computer": page_handler(browser, calls),
            "javascript_tool": page_handler(browser, calls),
        }
        h = GovernedHarness(nursery, handlers, tmp_path / f"{label}.jsonl", state(NARROW), browser)
        ws = h.workspace(TAB)
        seen = []
        for url in URLS:
            browser.urls[TAB] = url
            for tool, arguments in (
                ("navigate", {"url": url, "tabId": TAB}),
                ("computer", {"action": "left_click", "coordinate": [1, 1], "tabId": TAB}),
                ("javascript_tool", {"action": "javascript_exec", "text": "1", "tabId": TAB}),
            ):
                out = await h.call(tool, arguments, ws, restriction=restriction)
                seen.append((out.kind, text(out)))
            h.governor.resume()  # keep the attention circuit out of the comparison
        volatile = {"time", "call", "workspace", "duration_ms"}
        records = [{k: v for k, v in r.items() if k not in volatile} for r in h.records()]
        results[label] = (seen, records)
    assert repr(results["alone"]).encode() == repr(results["with"]).encode()
