"""Host identity: every name and address form of the machine the browser runs on is one host,
``localhost``, in URLs and in patterns alike, for every check that reads a host (never-touch,
policy, landing, frames, recordings, replays)."""

from __future__ import annotations

import os
import time

import pytest
import trio
from browser.session_driver import text  # tests/ is on sys.path (rootdir packages)

from ghostlight_trio.catalog.registry import load_specs
from ghostlight_trio.engine.contracts import ToolCall, ToolResult
from ghostlight_trio.governance import hosts
from ghostlight_trio.governance.directory import Requirement
from ghostlight_trio.governance.hosts import (
    LOCAL_MACHINE,
    Host,
    HostPattern,
    local_names,
    resolve_url,
)
from ghostlight_trio.governance.manifest import parse_manifest_object
from ghostlight_trio.governance.policy import TierPolicy, never_touch_match
from ghostlight_trio.governance.simulate import replay_one

from .harness import TAB, FakeBrowser, GovernedHarness, navigating_handler, state

LOADED_BY_CHROMIUM = [
    # Each of these, as the host of http://HOST:PORT/, loaded a test server listening on the
    # loopback addresses (127.0.0.1 and ::1; 127.0.0.2 for the 127.0.0.2 forms) in Chromium 156.
    "localhost", "LOCALHOST", "localhost.", "LocalHost..", "app.localhost", "a.b.localhost",
    "APP.LOCALHOST.", "%6c%6fcalhost", "l%4FCALHOST", "LOCALHOST%2E", "local%C2%ADhost",
    "ｌｏｃａｌｈｏｓｔ", "ⓛocalhost",
    "127.0.0.1", "127.0.0.2", "127.255.255.254", "127.1", "127.0.1", "0x7f000001", "0X7F.1",
    "0x7f.1", "2130706433", "017700000001", "0177.0.0.1", "0177.1", "127.0.0.01",
    "127.000.000.001", "127.0.0.1.", "%31%32%37.0.0.1", "１２７.０.０.１", "127。0。0。1",
    "0.0.0.0", "0", "00", "0.0", "0x0",
    "[::1]", "[0:0:0:0:0:0:0:1]", "[0000:0000:0000:0000:0000:0000:0000:0001]", "[::0001]",
    "[::0.0.0.1]", "[::]", "[0::0]",
    "[::ffff:127.0.0.1]", "[::FFFF:127.0.0.1]", "[::ffff:7f00:1]", "[0:0:0:0:0:ffff:127.0.0.1]",
    "[::ffff:127.0.0.2]", "[::ffff:7f01:203]", "[::ffff:0.0.0.0]", "[::ffff:0:0]",
]  # fmt: skip
CARRYING_A_LOCAL_IPV4 = [
    # IPv6 forms that carry a loopback or unspecified IPv4 address: Chromium here does not
    # connect them, but a system routing IPv4-compatible addresses, or a NAT64 gateway, might.
    "[::127.0.0.1]", "[::7f00:1]", "[::7f00:2]", "[64:ff9b::127.0.0.1]", "[64:ff9b::7f00:1]",
    "[::ffff:0:7f00:1]", "[::ffff:0:0:0]",
]  # fmt: skip
THIS_MACHINE = LOADED_BY_CHROMIUM + CARRYING_A_LOCAL_IPV4

OTHER_HOSTS = [
    ("126.255.255.255", "126.255.255.255"),
    ("128.0.0.1", "128.0.0.1"),
    ("0.0.0.1", "0.0.0.1"),  # not this machine: Chromium does not connect it
    ("1.0.0.127", "1.0.0.127"),
    ("[::2]", "[::2]"),
    ("[::ffff:10.0.0.1]", "10.0.0.1"),  # an IPv4 address written as IPv6 is that address
    ("[::ffff:7f00:1:0]", "[::ffff:7f00:1:0]"),
    ("[64:ff9b::a00:1]", "[64:ff9b::a00:1]"),
    ("[fe80::1]", "[fe80::1]"),
    ("[2001:db8::1]", "[2001:db8::1]"),
    ("localhost.example.com", "localhost.example.com"),
    ("localhostx", "localhostx"),
    ("mylocalhost", "mylocalhost"),
    ("localhost-1.test", "localhost-1.test"),
    ("127.0.0.1.example.com", "127.0.0.1.example.com"),
]

SHAPES = [
    "http://{}/", "https://{}:8443/path?q=1#f", "http://user:pw@{}:8080/", "ws://{}/socket",
    "wss://{}/", "http://good.example@{}/", "blob:http://{}/uuid", "view-source:http://{}/",
    "HTTP://{}", "http://{}\\x",
]  # fmt: skip


def test_every_spelling_of_this_machine_is_one_host() -> None:
    apart = {s: resolve_url(f"http://{s}:8080/x") for s in THIS_MACHINE}
    assert {s: where for s, where in apart.items() if where != Host(LOCAL_MACHINE)} == {}


@pytest.mark.parametrize("shape", SHAPES)
def test_this_machine_is_one_host_in_any_url_shape(shape: str) -> None:
    spellings = ["127.1", "[::1]", "0", "app.localhost", "[::ffff:7f00:1]"]
    assert {s: resolve_url(shape.format(s)) for s in spellings} == dict.fromkeys(
        spellings, Host(LOCAL_MACHINE)
    )


def test_a_pattern_naming_this_machine_names_it_in_any_spelling() -> None:
    parsed = {s: HostPattern.parse(s) for s in THIS_MACHINE}
    assert {s: (p.text, p.kind, p.host) for s, p in parsed.items()} == {
        s: (s, "exact", LOCAL_MACHINE) for s in THIS_MACHINE
    }


RULES = ["127.0.0.1", "localhost", "[::1]", "0.0.0.0", "*.localhost", "app.localhost",
         "[::ffff:127.0.0.1]", "127.0.0.2", "LOCALHOST."]  # fmt: skip


@pytest.mark.parametrize("rule", RULES)
def test_a_never_touch_entry_for_one_name_of_this_machine_covers_every_other(rule: str) -> None:
    listed = [HostPattern.parse("bank.test"), HostPattern.parse(rule)]
    missed = [
        s for s in THIS_MACHINE if never_touch_match(listed, resolve_url(f"http://{s}:1/")) is None
    ]
    assert missed == []
    for spelling, host in OTHER_HOSTS:  # and no other host
        assert resolve_url(f"http://{spelling}/") == Host(host)
        assert never_touch_match(listed, resolve_url(f"http://{spelling}/")) is None, spelling


def _tier(allow: list[str], deny: list[str]) -> TierPolicy:
    grants = [{"id": "g", "hosts": {"allow": allow, "deny": deny}, "allowed": ["read"]}]
    return TierPolicy(
        parse_manifest_object({"schema": 3, "name": "t", "version": "1", "grants": grants})
    )


READ = Requirement("navigate", None, frozenset({"read"}))


@pytest.mark.parametrize("rule", RULES)
def test_a_manifest_deny_of_one_name_of_this_machine_denies_every_other(rule: str) -> None:
    tier = _tier(["*"], [rule])
    let_through = [
        s for s in THIS_MACHINE if tier.decide(READ, resolve_url(f"http://{s}/")).verdict != "deny"
    ]
    assert let_through == []
    assert tier.decide(READ, resolve_url("https://example.com/")).verdict == "allow"


@pytest.mark.parametrize("rule", RULES)
def test_a_manifest_allow_of_one_name_of_this_machine_allows_it_and_nothing_else(rule: str) -> None:
    tier = _tier([rule], [])
    refused = [
        s for s in THIS_MACHINE if tier.decide(READ, resolve_url(f"http://{s}/")).verdict != "allow"
    ]
    assert refused == []
    for spelling, _ in OTHER_HOSTS:
        assert tier.decide(READ, resolve_url(f"http://{spelling}/")).verdict == "deny", spelling


def test_an_allow_and_a_deny_of_two_names_of_this_machine_deny_it() -> None:
    """Two names for one host in one grant are one exact pattern twice: the deny wins."""
    tier = _tier(["127.0.0.1"], ["[::1]"])
    decided = tier.decide(READ, resolve_url("http://localhost/"))
    assert (decided.verdict, decided.rule) == ("deny", "denied_domain")


def test_star_dot_localhost_is_this_machine_and_other_suffixes_stay_suffixes() -> None:
    """Every name under localhost is this machine, which ``localhost`` already names: the
    pattern is that host (were it a suffix it could match nothing, every name under it being
    ``localhost``, and a never-touch entry would protect nothing)."""
    assert HostPattern.parse("*.localhost") == HostPattern("*.localhost", "exact", LOCAL_MACHINE)
    assert HostPattern.parse("*.App.Localhost.").host == LOCAL_MACHINE
    assert HostPattern.parse("*.example.com") == HostPattern(
        "*.example.com", "subdomains", "example.com"
    )
    assert HostPattern.parse("*.localhost.example.com").kind == "subdomains"


def test_the_hosts_file_and_host_name_give_this_machine_more_names() -> None:
    text_of_hosts = (
        "# comment 127.0.0.1 commented\n"
        "127.0.0.1\tlocalhost Localhost.Localdomain\n"
        "127.0.1.1 devbox.example.lan devbox   # Debian's own-name line\n"
        "::1 ip6-localhost ip6-loopback\n"
        "0.0.0.0 ads.example  # a blocklist points names at the unspecified address\n"
        "::ffff:127.0.0.3 mapped.test\n"
        "fe00::0 ip6-localnet\n"
        "ff02::1 ip6-allnodes\n"
        "192.168.1.10 nas.lan\n"
        "127.0.0.1 ok.test bad_label! 10.0.0.1\n"
        "not-an-address somename\n"
    )
    assert local_names(text_of_hosts, "Workstation.") == {
        "localhost", "localhost.localdomain", "devbox.example.lan", "devbox", "ip6-localhost",
        "ip6-loopback", "ads.example", "mapped.test", "ok.test", "workstation",
    }  # fmt: skip


def test_names_the_machine_has_are_this_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hosts, "local_machine_names", lambda: frozenset({"devbox", "myapp.test"}))
    for url in (
        "http://devbox:3000/",
        "http://DEVBOX./",
        "http://myapp.test/",
        "http://u@MyApp.Test:1",
    ):
        assert resolve_url(url) == Host(LOCAL_MACHINE), url
    assert resolve_url("http://api.devbox/") == Host("api.devbox")  # not in the hosts file
    assert HostPattern.parse("devbox").host == LOCAL_MACHINE
    assert HostPattern.parse("*.devbox") == HostPattern("*.devbox", "subdomains", "devbox")
    assert (
        never_touch_match([HostPattern.parse("127.0.0.1")], resolve_url("http://myapp.test/"))
        is not None
    )


def test_this_machine_s_own_host_name_is_this_machine() -> None:
    """Read for real: the host name the system reports."""
    import socket

    name = socket.gethostname().rstrip(".").lower()
    assert resolve_url(f"http://{name}:8000/") == Host(LOCAL_MACHINE)


def test_the_hosts_file_is_read_without_waiting_and_only_when_regular(tmp_path) -> None:
    regular = tmp_path / "hosts"
    regular.write_text("127.0.0.1 a.test\n")
    assert hosts._read_hosts_file(regular) == "127.0.0.1 a.test\n"
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    started = time.monotonic()
    assert hosts._read_hosts_file(fifo) == ""  # no writer: a blocking open would hang here
    assert time.monotonic() - started < 5
    assert hosts._read_hosts_file(tmp_path) == ""
    assert hosts._read_hosts_file(tmp_path / "missing") == ""


def test_a_replay_names_a_recorded_host_as_a_live_decision_does() -> None:
    """An audit record written when 127.0.0.1 was a host of its own replays against a
    never-touch ``localhost`` as the live gate now decides: denied."""
    [spec] = [spec for spec in load_specs() if spec.name == "navigate"]
    record = {"tool": "navigate", "action": None, "host": "127.0.0.1", "decision": "allow"}
    for entry in ("localhost", "[::1]", "127.0.0.1"):
        decision = replay_one(record, spec, state(None, never_touch=[entry]))
        assert (decision.verdict, decision.rule) == ("deny", f"sacred/{entry}")


# --- every check of the gate reads the one host ------------------------------------------------

# All open but for a never-touch entry: only host identity can refuse what these tests try.
NEVER_LOOPBACK = state(None, never_touch=["127.0.0.1"])


def _harness(nursery, tmp_path, browser, held_pages=None, **handlers):
    base = {"navigate": navigating_handler(browser)}
    return GovernedHarness(
        nursery, {**base, **handlers}, tmp_path / "audit.jsonl", NEVER_LOOPBACK, browser=browser,
        held_pages=held_pages,
    )  # fmt: skip


@pytest.mark.parametrize("spelling", ["localhost", "[::1]", "127.0.0.2", "0.0.0.0", "[::ffff:127.0.0.1]",
                                      "0x7f.1", "app.localhost", "[::]", "2130706433"])  # fmt: skip
async def test_a_navigation_to_this_machine_by_another_name_meets_the_never_touch_list(
    nursery, tmp_path, spelling
):
    browser = FakeBrowser()
    h = _harness(nursery, tmp_path, browser)
    ws = h.workspace(TAB)
    out = await h.call("navigate", {"url": f"http://{spelling}:8080/admin", "tabId": TAB}, ws)
    assert out.kind == "denied" and "never-touch" in text(out), text(out)
    assert browser.navigations == []
    [record] = h.records()
    assert (record["rule"], record["host"]) == ("sacred/127.0.0.1", LOCAL_MACHINE)


async def test_a_landing_on_this_machine_by_another_name_is_parked(nursery, tmp_path):
    browser = FakeBrowser()
    start = "https://docs.example.com/go"
    h = GovernedHarness(
        nursery, {"navigate": navigating_handler(browser, {start: "http://[::ffff:7f00:2]:9/in"})},
        tmp_path / "audit.jsonl", NEVER_LOOPBACK, browser=browser,
    )  # fmt: skip
    ws = h.workspace(TAB)
    out = await h.call("navigate", {"url": start, "tabId": TAB}, ws)
    assert out.kind == "denied" and "about:blank" in text(out), text(out)
    assert browser.urls[TAB] == "about:blank"


@pytest.mark.parametrize("frame", ["http://0.0.0.0:9/", "http://[::1]/", "http://x.localhost/"])
async def test_a_frame_of_this_machine_by_another_name_is_judged_as_this_machine(
    nursery, tmp_path, frame
):
    browser = FakeBrowser()
    answers: list[str | None] = []

    async def clicking(call: ToolCall) -> ToolResult:
        answers.extend(call.effects.denied_at(url) for url in ("https://docs.example.com/", frame))
        return ToolResult.text("clicked")

    h = _harness(nursery, tmp_path, browser, computer=clicking)
    ws = h.workspace(TAB)
    browser.urls[TAB] = "https://docs.example.com/"
    await h.call("computer", {"action": "left_click", "coordinate": [1, 1], "tabId": TAB}, ws)
    docs, local = answers
    assert docs is None
    assert local is not None and "embedded frame of localhost" in local and "never-touch" in local


async def test_a_recording_of_this_machine_by_another_name_is_not_exported(nursery, tmp_path):
    browser = FakeBrowser()

    async def recorder(call: ToolCall) -> ToolResult:
        return ToolResult.text("exported")

    def held_pages(workspace, tab):
        return ["https://docs.example.com/a", "http://127.1:3000/"]

    h = _harness(nursery, tmp_path, browser, held_pages, gif_creator=recorder)
    ws = h.workspace(TAB)
    h.workspaces.tab_closed(TAB)
    out = await h.call("gif_creator", {"tabId": TAB, "action": "export", "download": True}, ws)
    assert out.kind == "denied" and "localhost" in text(out), text(out)


async def test_a_tab_on_this_machine_by_another_name_is_read_as_this_machine(nursery, tmp_path):
    browser = FakeBrowser()

    async def reading(call: ToolCall) -> ToolResult:
        await trio.lowlevel.checkpoint()
        return ToolResult.text("secret page text")

    h = _harness(nursery, tmp_path, browser, get_page_text=reading)
    ws = h.workspace(TAB)
    browser.urls[TAB] = "http://[::ffff:127.0.0.9]:5000/"
    out = await h.call("get_page_text", {"tabId": TAB}, ws)
    assert out.kind == "denied" and "secret" not in text(out), text(out)
