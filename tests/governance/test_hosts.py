"""Host normalisation and pattern matching, table-driven, including the classic bypasses."""

from __future__ import annotations

import pytest

from ghostlight_trio.governance.directory import Requirement
from ghostlight_trio.governance.hosts import (
    Blank,
    Host,
    HostPattern,
    Indeterminate,
    OutOfScope,
    PatternError,
    resolve_url,
)
from ghostlight_trio.governance.manifest import parse_manifest_object
from ghostlight_trio.governance.policy import TierPolicy

URLS = [
    ("https://example.com/path?q=1", Host("example.com")),
    ("https://good.com@evil.com", Host("evil.com")),
    ("https://good.com:pass@evil.com/x", Host("evil.com")),
    ("https://evil.com\\@good.com", Host("evil.com")),
    ("https://evil.com\\.good.com/", Host("evil.com")),
    ("https://EVIL.COM/", Host("evil.com")),
    ("https://evil.com./", Host("evil.com")),
    ("https://evil.com.../", Host("evil.com")),
    ("https://evil.com:8443/x", Host("evil.com")),
    ("https://%65vil.com/", Host("evil.com")),
    ("https://ev\til.com/", Host("evil.com")),
    ("https://bücher.de/", Host("xn--bcher-kva.de")),
    ("https://XN--BCHER-KVA.DE./", Host("xn--bcher-kva.de")),
    ("https://ｅｖｉｌ．ｃｏｍ/", Host("evil.com")),
    ("https://аpple.com/", Host("xn--pple-43d.com")),
    ("http://0x7f.1/", Host("localhost")),  # every form of this machine is one host
    ("http://2130706433/", Host("localhost")),
    ("http://[0:0::1]:80/", Host("localhost")),
    ("http://[::ffff:127.0.0.4]:8080/", Host("localhost")),
    ("http://[::FFFF:7f00:4]/", Host("localhost")),
    ("http://0xa.1/", Host("10.0.0.1")),
    ("http://167772161/", Host("10.0.0.1")),
    ("http://[2001:0db8:0::1]:80/", Host("[2001:db8::1]")),
    ("http://[::ffff:10.0.0.4]:8080/", Host("10.0.0.4")),  # IPv4 written as IPv6
    ("http://[::FFFF:a00:4]/", Host("10.0.0.4")),
    ("blob:https://evil.com/uuid", Host("evil.com")),
    ("view-source:https://evil.com/", Host("evil.com")),
    ("about:blank", Blank()),
    ("about:blank#x", Blank()),
    ("data:text/html,hi", OutOfScope("data")),
    ("file:///etc/passwd", OutOfScope("file")),
    ("chrome://settings", OutOfScope("chrome")),
    ("https://exa mple.com/", Indeterminate("invalid host")),
    ("https://example.com:99999/", Indeterminate("malformed authority")),
    ("https:///nohost", Indeterminate("no host")),
]


@pytest.mark.parametrize(("url", "expected"), URLS)
def test_url_resolution(url: str, expected: object) -> None:
    assert resolve_url(url) == expected


PATTERNS_OK = [
    ("*", "any", ""),
    ("*.Example.COM.", "subdomains", "example.com"),
    ("EXAMPLE.com", "exact", "example.com"),
    ("bücher.de", "exact", "xn--bcher-kva.de"),
    ("*.xn--bcher-kva.de", "subdomains", "xn--bcher-kva.de"),
]


@pytest.mark.parametrize(("text", "kind", "host"), PATTERNS_OK)
def test_pattern_parsing(text: str, kind: str, host: str) -> None:
    pattern = HostPattern.parse(text)
    assert (pattern.kind, pattern.host) == (kind, host)


@pytest.mark.parametrize(
    "text",
    ["https://example.com", "example.com/path", "example.com:443", "ex*ample.com", "*example.com",
     "a.*.com", "user@example.com", "", ".", "*.", 42],
)
def test_bad_patterns_are_refused(text: object) -> None:
    with pytest.raises(PatternError):
        HostPattern.parse(text)


@pytest.mark.parametrize(
    ("text", "bracketed", "host"),
    [("::1", "[::1]", "localhost"), ("2001:db8::1", "[2001:db8::1]", "[2001:db8::1]")],
)
def test_a_bare_ipv6_address_is_told_to_use_brackets(text: str, bracketed: str, host: str) -> None:
    """Its colons are no port: the refusal says how to write it, and that way it parses."""
    with pytest.raises(PatternError) as refused:
        HostPattern.parse(text)
    assert "port" not in str(refused.value)
    assert f'write IPv6 addresses in brackets, e.g. "{bracketed}"' in str(refused.value)
    assert HostPattern.parse(bracketed).host == host


def test_a_host_with_a_port_is_still_told_so() -> None:
    with pytest.raises(PatternError, match="names a port"):
        HostPattern.parse("localhost:8080")


def _policy(allow: list[str], deny: list[str] = ()) -> TierPolicy:  # type: ignore[assignment]
    return TierPolicy(
        parse_manifest_object(
            {
                "schema": 3,
                "name": "t",
                "version": "1",
                "grants": [
                    {"id": "g", "hosts": {"allow": allow, "deny": list(deny)}, "allowed": ["read"]}
                ],
            }
        )
    )


READ = Requirement("navigate", None, frozenset({"read"}))

MATCHES = [
    # allow, deny, url, allowed?
    (["example.com"], [], "https://example.com/", True),
    (["example.com"], [], "https://EXAMPLE.com./", True),
    (["example.com"], [], "https://example.com:8080/", True),
    (["example.com"], [], "https://www.example.com/", False),
    (["*.example.com"], [], "https://example.com/", False),  # *.x never matches the apex
    (["*.example.com"], [], "https://a.b.example.com/", True),
    (["*.example.com"], [], "https://badexample.com/", False),
    (["good.com"], [], "https://good.com@evil.com/", False),
    (["good.com"], [], "https://evil.com\\@good.com/", False),
    (["good.com"], [], "https://good.com.evil.com/", False),
    (["*"], ["evil.com"], "https://evil.com/", False),
    (["*"], ["evil.com"], "https://sub.evil.com/", True),  # exact deny does not cover subdomains
    (["*"], ["*.evil.com"], "https://sub.evil.com/", False),
    (["*.evil.com", "safe.evil.com"], ["*.evil.com"], "https://safe.evil.com/", True),  # exact beats suffix
    (["*.evil.com"], ["*.evil.com"], "https://x.evil.com/", False),  # tie denies
    (["*.a.example.com"], ["*.example.com"], "https://x.a.example.com/", True),  # longer suffix wins
    (["*.example.com"], ["*.a.example.com"], "https://x.a.example.com/", False),
    (["bücher.de"], [], "https://xn--bcher-kva.de/", True),
    (["xn--bcher-kva.de"], [], "https://BÜCHER.de/", True),
    (["apple.com"], [], "https://аpple.com/", False),  # Cyrillic a
    (["127.0.0.1"], [], "http://0x7f.1/", True),
    (["127.0.0.4"], [], "http://[::ffff:127.0.0.4]/", True),
    (["example.com"], [], "data:text/html,example.com", False),
    (["example.com"], [], "about:blank", True),
]


@pytest.mark.parametrize(("allow", "deny", "url", "allowed"), MATCHES)
def test_host_matching(allow: list[str], deny: list[str], url: str, allowed: bool) -> None:
    decision = _policy(allow, deny).decide(READ, resolve_url(url))
    assert (decision.verdict == "allow") is allowed, decision
