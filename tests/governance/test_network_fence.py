"""The hosts the user closed are fenced off for an agent's tab itself: the never-touch list and
enforced deny lists become the browser's blocked-URL patterns, matching every spelling the
browser gives such a host and nothing the policy leaves open."""

from __future__ import annotations

import re

import trio
from browser.session_driver import text  # tests/ is on sys.path (rootdir packages)

from ghostlight_trio.governance.hosts import HostPattern
from ghostlight_trio.governance.network_fence import fenced_patterns

from .harness import TAB, FakeBrowser, GovernedHarness, grant, manifest, page_handler, state


def _blocked(patterns: tuple[str, ...], url: str) -> bool:
    """The browser's wildcard match: ``*`` is any run of characters, all else is literal."""
    return any(re.fullmatch(".*".join(map(re.escape, p.split("*"))), url) for p in patterns)


def _never_touch(*entries: str) -> tuple[str, ...]:
    return fenced_patterns((), [HostPattern.parse(entry) for entry in entries])


def test_a_never_touch_host_is_blocked_with_or_without_port_or_userinfo() -> None:
    patterns = _never_touch("bank.test", "*.health.test")
    for url in ("https://bank.test/", "http://bank.test:8080/pay?x=1", "wss://bank.test/socket",
                "https://u:p@bank.test/", "https://a.health.test/", "https://a.b.health.test:1/"):  # fmt: skip
        assert _blocked(patterns, url), url
    for url in ("https://notbank.test/", "https://bank.test.evil/", "https://health.test/",
                "https://shop.test/"):  # fmt: skip
        assert not _blocked(patterns, url), url


def test_this_machine_is_blocked_in_every_spelling_the_browser_gives() -> None:
    patterns = _never_touch("127.0.0.1")
    for url in ("http://localhost:8000/", "http://app.localhost/", "http://127.0.0.1/",
                "http://127.0.0.2:9/", "http://0.0.0.0/", "http://[::1]:8000/", "http://[::]/",
                "http://[::ffff:7f00:1]/", "http://[::ffff:0:0]/"):  # fmt: skip
        assert _blocked(patterns, url), url
    assert not _blocked(patterns, "https://example.test/")


def test_only_enforced_deny_lists_are_fenced_never_what_is_merely_not_granted() -> None:
    enforced = state(manifest(grant("docs", ["*.docs.test"], ["read"], deny=["admin.docs.test"])))
    observed = state(manifest(grant("docs", ["*.docs.test"], ["read"], deny=["admin.docs.test"], mode="observe")))
    assert _blocked(fenced_patterns(enforced.tiers, ()), "https://admin.docs.test/")
    assert not _blocked(fenced_patterns(enforced.tiers, ()), "https://cdn.elsewhere.test/app.js")
    assert fenced_patterns(observed.tiers, ()) == ()
    assert fenced_patterns((), ()) == ()


class _FencingBrowser:
    def __init__(self) -> None:
        self.fences: list[tuple[int, tuple[str, ...]]] = []

    async def fence(self, workspace: object, tab: int, patterns: tuple[str, ...]) -> None:
        await trio.lowlevel.checkpoint()
        self.fences.append((tab, patterns))


async def test_a_tab_is_fenced_once_per_policy_before_its_call_acts(nursery, tmp_path) -> None:
    calls: list[str] = []
    browser = FakeBrowser()
    handlers = {"get_page_text": page_handler(browser, calls)}
    h = GovernedHarness(
        nursery, handlers, tmp_path / "audit.jsonl", state(None, never_touch=["bank.test"]), browser=browser
    )
    fencing = _FencingBrowser()
    h.gate._fences._fence = fencing.fence  # the assembly's fence, over a fake browser
    ws = h.workspace(TAB)
    h.browser.urls[TAB] = "https://shop.test/"
    for _ in range(3):
        out = await h.call("get_page_text", {"tabId": TAB}, ws)
        assert out.kind == "ok", text(out)
    [(tab, patterns)] = fencing.fences
    assert tab == TAB and _blocked(patterns, "https://bank.test/")
    h.governor.set_state(state(None, never_touch=[]))  # the user empties the list: the fence goes
    await h.call("get_page_text", {"tabId": TAB}, ws)
    await h.call("get_page_text", {"tabId": TAB}, ws)
    assert fencing.fences[1:] == [(TAB, ())]
    assert calls == ["get_page_text"] * 5
