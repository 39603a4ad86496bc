"""Which requests an agent's tab may not send while agents drive it, as the browser's own
blocked-URL patterns (CDP ``Network.setBlockedURLs``, set per tab on the tab's debugger session).

Policy is judged where a call acts, by the tab's page; script that page runs (the page's own,
or ``javascript_tool``'s) can still ``fetch`` any host that answers it, load an image, post a
form in the background. The hosts the user named as closed are fenced off for the tab itself:
every never-touch entry, and every host a grant of an enforced tier names in its ``deny`` list.
A host a policy denies only by granting nothing for it is not fenced: a page's own scripts,
styles and images come from many hosts no policy lists, and fencing them all would break the
pages the policy allows.

The patterns are the browser's wildcard form over the whole URL (``*`` is any run of
characters), matched against the URL as the browser spells it (lower-case host, punycode,
dotted IPv4, compressed IPv6). They err on the side of blocking: ``*://bank.example/*`` also
matches a URL of another site that carries that text in its query. Every name and address of
this machine is one host (``hosts.LOCAL_MACHINE``), fenced in every spelling the browser gives.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from .hosts import LOCAL_MACHINE, HostPattern, local_machine_names
from .policy import TierPolicy

ANY_URL = "*"

_LOCAL_ADDRESSES = ("127.*", "0.0.0.0", "[::1]", "[::]", "[::ffff:7f*", "[::ffff:0:0]")
"""How the browser spells this machine's addresses: all of 127/8, the unspecified addresses,
IPv6 loopback, and 127/8 and 0.0.0.0 carried in IPv6 (compressed hex)."""


def fenced_patterns(
    tiers: Iterable[tuple[str, TierPolicy]], never_touch: Iterable[HostPattern]
) -> tuple[str, ...]:
    """The blocked-URL patterns for the never-touch list and the enforced deny lists, sorted
    and without repeats (so an unchanged policy gives an equal tuple)."""
    closed: list[HostPattern] = list(never_touch)
    for _name, tier in tiers:
        manifest = tier.manifest
        for grant in manifest.grants:
            if (grant.mode or manifest.mode) == "enforce":
                closed.extend(grant.deny)
    return tuple(sorted({url for pattern in closed for url in _urls(pattern)}))


def _urls(pattern: HostPattern) -> Iterator[str]:
    if pattern.kind == "any":
        yield ANY_URL
        return
    if pattern.host == LOCAL_MACHINE:
        for host in (LOCAL_MACHINE, f"*.{LOCAL_MACHINE}", *_LOCAL_ADDRESSES, *local_machine_names()):
            yield from _host_urls(host)
        return
    yield from _host_urls(pattern.host if pattern.kind == "exact" else f"*.{pattern.host}")


def _host_urls(host: str) -> Iterator[str]:
    """A host with and without a port, and after userinfo (``user@host``)."""
    for lead in ("*://", "*@"):
        yield f"{lead}{host}/*"
        yield f"{lead}{host}:*"
